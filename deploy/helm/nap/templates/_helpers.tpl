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

{{/* The MongoDBCommunity resource (and so the replica set) of this release. */}}
{{- define "nap.mongodbName" -}}
{{- printf "%s-mongodb" (include "nap.fullname" .) | trunc 44 | trimSuffix "-" -}}
{{- end -}}

{{/* The MongoDB user of one service: it may read and write its own database and nothing else. */}}
{{- define "nap.mongodbUser" -}}
{{- printf "nap-%s" . -}}
{{- end -}}

{{/* The database of one service (as NAP names it: nap_<service>, dashes as underscores). */}}
{{- define "nap.mongodbDatabase" -}}
{{- printf "nap_%s" (. | replace "-" "_") -}}
{{- end -}}

{{/* The connection-string Secret the operator writes for a service's user: <resource>-<auth db>-<user>. (dict "root" . "component" name) */}}
{{- define "nap.mongodbUrlSecret" -}}
{{- printf "%s-admin-%s" (include "nap.mongodbName" .root) (include "nap.mongodbUser" .component) -}}
{{- end -}}

{{/* Checks that the bus and the store are set one way or the other. */}}
{{- define "nap.validate" -}}
{{- if and (not .Values.nats.enabled) (not .Values.externalNats.url) (not .Values.externalNats.existingSecret) -}}
{{- fail "NATS is required: set nats.enabled=true, externalNats.url or externalNats.existingSecret" -}}
{{- end -}}
{{- if and (not .Values.mongodb.enabled) (not .Values.externalMongodb.url) (not .Values.externalMongodb.existingSecret) -}}
{{- fail "MongoDB is required on Kubernetes (services scale out): set mongodb.enabled=true, externalMongodb.url or externalMongodb.existingSecret" -}}
{{- end -}}
{{- if not .Values.secrets.existingSecret -}}
{{- fail "secrets.existingSecret is required: make the Secret before installing (deploy/helm/nap/files/make-secrets.sh); the chart generates no secret, so that every render is the same" -}}
{{- end -}}
{{- if and .Values.mongodb.enabled (not .Values.mongodb.existingSecret) -}}
{{- fail "mongodb.existingSecret is required with mongodb.enabled: make the Secret of the service users' passwords before installing (deploy/helm/nap/files/make-secrets.sh)" -}}
{{- end -}}
{{- end -}}

{{/* Environment of one NAP container. (dict "root" . "component" name) */}}
{{- define "nap.env" -}}
{{- $root := .root -}}
{{- $dir := include "nap.secretsDir" $root -}}
- { name: NAP_HOST, value: "0.0.0.0" }
- { name: NAP_HEALTH_PORT, value: {{ $root.Values.config.healthPort | int64 | quote }} }
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
- { name: NAP_BODY_LIMIT_BYTES, value: {{ $root.Values.config.bodyLimitBytes | int64 | quote }} }
- { name: NAP_DOCUMENT_BODY_LIMIT_BYTES, value: {{ $root.Values.config.documentBodyLimitBytes | int64 | quote }} }
- { name: NAP_TOKEN_TTL_SECONDS, value: {{ $root.Values.config.tokenTtlSeconds | int64 | quote }} }
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
- { name: NAP_TOKEN_TTL_SECONDS, value: {{ $root.Values.config.tokenTtlSeconds | int64 | quote }} }
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
            - { key: {{ $root.Values.secrets.keys.secretKey }}, path: secret-key }
            {{- if eq .component "admin" }}
            - { key: {{ $root.Values.secrets.keys.adminPassword }}, path: admin-password }
            {{- end }}
      {{- if and $root.Values.mongodb.enabled (ne .component "gateway") }}
      # the operator writes this service's own connection string (its user, its password) once the user exists
      - secret:
          name: {{ include "nap.mongodbUrlSecret" (dict "root" $root "component" .component) }}
          items:
            - { key: connectionString.standard, path: mongo-url }
      {{- else if and $root.Values.externalMongodb.existingSecret (ne .component "gateway") }}
      - secret:
          name: {{ $root.Values.externalMongodb.existingSecret }}
          items:
            - { key: {{ get $root.Values.externalMongodb.serviceKeys .component | default $root.Values.externalMongodb.existingSecretKey }}, path: mongo-url }
      {{- end }}
      {{- if and (not $root.Values.nats.enabled) $root.Values.externalNats.existingSecret }}
      - secret:
          name: {{ $root.Values.externalNats.existingSecret }}
          items:
            - { key: {{ $root.Values.externalNats.existingSecretKey }}, path: nats-url }
      {{- end }}
{{- end -}}
