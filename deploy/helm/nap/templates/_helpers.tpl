{{/* Names ─────────────────────────────────────────────────────────────────────────────────── */}}
{{- define "nap.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "nap.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The NAP components: the gateway and the six services, in one order. */}}
{{- define "nap.components" -}}
{{- list "gateway" "admin" "workflow" "mop" "gateway-devices" "orch-proxy" "studio" | toJson -}}
{{- end -}}

{{/* Settings of one component: the gateway's block or the service's. (dict "root" . "component" name) */}}
{{- define "nap.componentValues" -}}
{{- if eq .component "gateway" -}}
{{- toJson .root.Values.gateway -}}
{{- else -}}
{{- toJson (index .root.Values.services .component) -}}
{{- end -}}
{{- end -}}

{{/* Labels ────────────────────────────────────────────────────────────────────────────────── */}}
{{- define "nap.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "nap.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: nap
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* Every NAP pod of this release. */}}
{{- define "nap.selectorLabels" -}}
app.kubernetes.io/name: {{ include "nap.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The pods of one component. (dict "root" . "component" name) */}}
{{- define "nap.componentSelectorLabels" -}}
{{ include "nap.selectorLabels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "nap.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "nap.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "nap.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* Secrets ───────────────────────────────────────────────────────────────────────────────── */}}
{{- define "nap.secretName" -}}
{{- default (include "nap.fullname" .) .Values.secrets.existingSecret -}}
{{- end -}}

{{/* Where secrets are mounted in every NAP container (NAP_*_FILE). */}}
{{- define "nap.secretsDir" -}}/run/secrets/nap{{- end -}}

{{/* Bus and store ─────────────────────────────────────────────────────────────────────────── */}}
{{/* The NATS chart's service name: its fullname rule. */}}
{{- define "nap.natsHost" -}}
{{- if .Values.nats.fullnameOverride -}}
{{- .Values.nats.fullnameOverride -}}
{{- else if contains "nats" .Release.Name -}}
{{- .Release.Name -}}
{{- else -}}
{{- printf "%s-nats" .Release.Name -}}
{{- end -}}
{{- end -}}

{{/* The Bitnami MongoDB chart's fullname rule. */}}
{{- define "nap.mongodbHost" -}}
{{- if .Values.mongodb.fullnameOverride -}}
{{- .Values.mongodb.fullnameOverride -}}
{{- else if contains "mongodb" .Release.Name -}}
{{- .Release.Name -}}
{{- else -}}
{{- printf "%s-mongodb" .Release.Name -}}
{{- end -}}
{{- end -}}

{{- define "nap.mongodbSecretName" -}}
{{- tpl .Values.mongodb.auth.existingSecret . -}}
{{- end -}}

{{/* The URL of the MongoDB this chart installs. (dict "root" . "password" pw) */}}
{{- define "nap.mongodbUrl" -}}
{{- $root := .root -}}
{{- $host := include "nap.mongodbHost" $root -}}
{{- $credentials := "" -}}
{{- if $root.Values.mongodb.auth.enabled -}}
{{- $credentials = printf "root:%s@" (.password | urlquery) -}}
{{- end -}}
{{- if eq $root.Values.mongodb.architecture "replicaset" -}}
{{- $members := list -}}
{{- range $i := until (int $root.Values.mongodb.replicaCount) -}}
{{- $members = append $members (printf "%s-%d.%s-headless.%s.svc:27017" $host $i $host $root.Release.Namespace) -}}
{{- end -}}
{{- printf "mongodb://%s%s/?authSource=admin&replicaSet=rs0" $credentials (join "," $members) -}}
{{- else -}}
{{- printf "mongodb://%s%s.%s.svc:27017/?authSource=admin" $credentials $host $root.Release.Namespace -}}
{{- end -}}
{{- end -}}

{{/* Checks that the bus and the store are set one way or the other. */}}
{{- define "nap.validate" -}}
{{- if and (not .Values.nats.enabled) (not .Values.externalNats.url) (not .Values.externalNats.existingSecret) -}}
{{- fail "NATS is required: set nats.enabled=true, externalNats.url or externalNats.existingSecret" -}}
{{- end -}}
{{- if and (not .Values.mongodb.enabled) (not .Values.externalMongodb.url) (not .Values.externalMongodb.existingSecret) -}}
{{- fail "MongoDB is required on Kubernetes (services scale out): set mongodb.enabled=true, externalMongodb.url or externalMongodb.existingSecret" -}}
{{- end -}}
{{- end -}}

{{/* Environment of one NAP container. (dict "root" . "component" name) */}}
{{- define "nap.env" -}}
{{- $root := .root -}}
{{- $dir := include "nap.secretsDir" $root -}}
- { name: NAP_HOST, value: "0.0.0.0" }
- { name: NAP_HEALTH_PORT, value: {{ $root.Values.config.healthPort | quote }} }
- { name: NAP_DATA_DIR, value: /data }
- { name: NAP_LOG_LEVEL, value: {{ $root.Values.config.logLevel | quote }} }
- { name: NAP_SECRET_KEY_FILE, value: {{ printf "%s/secret-key" $dir | quote }} }
{{- if $root.Values.nats.enabled }}
- { name: NAP_NATS_URL, value: {{ printf "nats://%s.%s.svc:4222" (include "nap.natsHost" $root) $root.Release.Namespace | quote }} }
{{- else if $root.Values.externalNats.existingSecret }}
- { name: NAP_NATS_URL_FILE, value: {{ printf "%s/nats-url" $dir | quote }} }
{{- else }}
- { name: NAP_NATS_URL, value: {{ $root.Values.externalNats.url | quote }} }
{{- end }}
{{- if eq .component "gateway" }}
- { name: NAP_PORT, value: "3000" }
- { name: NAP_BODY_LIMIT_BYTES, value: {{ $root.Values.config.bodyLimitBytes | quote }} }
- { name: NAP_DOCUMENT_BODY_LIMIT_BYTES, value: {{ $root.Values.config.documentBodyLimitBytes | quote }} }
- { name: NAP_TOKEN_TTL_SECONDS, value: {{ $root.Values.config.tokenTtlSeconds | quote }} }
{{- else }}
{{- if or $root.Values.mongodb.enabled $root.Values.externalMongodb.existingSecret }}
- { name: NAP_MONGO_URL_FILE, value: {{ printf "%s/mongo-url" $dir | quote }} }
{{- else }}
- { name: NAP_MONGO_URL, value: {{ $root.Values.externalMongodb.url | quote }} }
{{- end }}
{{- end }}
{{- if eq .component "admin" }}
- { name: NAP_ADMIN_USERNAME, value: {{ $root.Values.config.adminUsername | quote }} }
- { name: NAP_ADMIN_PASSWORD_FILE, value: {{ printf "%s/admin-password" $dir | quote }} }
- { name: NAP_TOKEN_TTL_SECONDS, value: {{ $root.Values.config.tokenTtlSeconds | quote }} }
{{- end }}
{{- if $root.Values.otel.endpoint }}
- { name: OTEL_EXPORTER_OTLP_ENDPOINT, value: {{ $root.Values.otel.endpoint | quote }} }
- { name: OTEL_RESOURCE_ATTRIBUTES, value: {{ printf "service.namespace=%s,deployment.environment=%s" $root.Release.Namespace $root.Release.Name | quote }} }
{{- end }}
{{- with $root.Values.config.extraEnv }}
{{ toYaml . }}
{{- end }}
{{- end -}}

{{/* The secret files of one NAP container: only what its process reads. (dict "root" . "component" name) */}}
{{- define "nap.secretVolume" -}}
{{- $root := .root -}}
- name: secrets
  projected:
    defaultMode: 0440
    sources:
      - secret:
          name: {{ include "nap.secretName" $root }}
          items:
            - { key: secret-key, path: secret-key }
            {{- if eq .component "admin" }}
            - { key: admin-password, path: admin-password }
            {{- end }}
            {{- if and $root.Values.mongodb.enabled (ne .component "gateway") }}
            - { key: mongo-url, path: mongo-url }
            {{- end }}
      {{- if and (not $root.Values.mongodb.enabled) $root.Values.externalMongodb.existingSecret (ne .component "gateway") }}
      - secret:
          name: {{ $root.Values.externalMongodb.existingSecret }}
          items:
            - { key: {{ $root.Values.externalMongodb.existingSecretKey }}, path: mongo-url }
      {{- end }}
      {{- if and (not $root.Values.nats.enabled) $root.Values.externalNats.existingSecret }}
      - secret:
          name: {{ $root.Values.externalNats.existingSecret }}
          items:
            - { key: {{ $root.Values.externalNats.existingSecretKey }}, path: nats-url }
      {{- end }}
{{- end -}}
