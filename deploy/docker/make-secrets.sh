#!/bin/sh
# Creates the secret files compose mounts (deploy/docker/secrets/), once; existing files are kept.
# They are readable by the containers' user (uid 1000) and nobody else when run as root, else by
# everyone on this host: keep the folder itself private.
set -eu
cd "$(dirname "$0")"
mkdir -p secrets
chmod 700 secrets
random() { head -c "$1" /dev/urandom | od -An -tx1 | tr -d ' \n'; }
[ -s secrets/secret-key ] || random 32 >secrets/secret-key
[ -s secrets/admin-password ] || random 12 >secrets/admin-password
# MongoDB: the root password (mongo-init only), the key file of the replica set's members, and one
# user per service whose URL only that service mounts
[ -s secrets/mongo-password ] || random 24 >secrets/mongo-password
[ -s secrets/mongo-keyfile ] || random 96 >secrets/mongo-keyfile
for service in admin workflow mop gateway-devices orch-proxy studio; do
  if ! grep -q "^$service=" secrets/mongo-service-passwords 2>/dev/null; then
    echo "$service=$(random 24)" >>secrets/mongo-service-passwords
  fi
  password=$(sed -n "s/^$service=//p" secrets/mongo-service-passwords)
  [ -s "secrets/mongo-url-$service" ] ||
    printf 'mongodb://nap-%s:%s@mongo:27017/?replicaSet=rs0&authSource=admin' "$service" "$password" >"secrets/mongo-url-$service"
done
if [ "$(id -u)" = 0 ]; then
  chown 1000:1000 secrets/* && chmod 400 secrets/*
else
  chmod 444 secrets/*
fi
echo "secrets in $(pwd)/secrets; the admin password is in secrets/admin-password"
