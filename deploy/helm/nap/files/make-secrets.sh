#!/bin/sh
# The pre-install step of the chart: makes the Secrets NAP's values name, once, with random values;
# existing ones are kept (the chart itself generates no secret, so `helm template` and GitOps renders
# never change one). Usage: files/make-secrets.sh <namespace> [nap-secrets] [nap-mongodb-passwords]
#   secrets.existingSecret   keys secret-key (encrypts data at rest: keep a copy) and admin-password
#   mongodb.existingSecret   one password per service user: admin workflow mop gateway-devices orch-proxy studio
set -eu
ns=${1:?usage: make-secrets.sh <namespace> [nap-secret] [mongodb-passwords-secret]}
nap=${2:-nap-secrets}
mongo=${3:-nap-mongodb-passwords}
random() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
exists() { kubectl -n "$ns" get secret "$1" >/dev/null 2>&1; }
kubectl get namespace "$ns" >/dev/null 2>&1 || kubectl create namespace "$ns"
if exists "$nap"; then
  echo "secret $ns/$nap exists: kept"
else
  kubectl -n "$ns" create secret generic "$nap" \
    --from-literal=secret-key="$(random 32)" --from-literal=admin-password="$(random 12)"
fi
if exists "$mongo"; then
  echo "secret $ns/$mongo exists: kept"
else
  set --
  for service in admin workflow mop gateway-devices orch-proxy studio; do set -- "$@" "--from-literal=$service=$(random 24)"; done
  kubectl -n "$ns" create secret generic "$mongo" "$@"
fi
