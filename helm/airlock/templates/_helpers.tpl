{{/* Release names, labels and the configuration the chart renders. */}}

{{- define "airlock.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "airlock.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "airlock.selectorLabels" -}}
app.kubernetes.io/name: {{ include "airlock.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "airlock.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "airlock.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "airlock.testLabels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: helm-test
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "airlock.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "airlock.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "airlock.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}

{{/*
The most pods the release can run at once: replicaCount, or the autoscaler's ceiling.
*/}}
{{- define "airlock.maxPods" -}}
{{- if .Values.autoscaling.enabled }}{{ int .Values.autoscaling.maxReplicas }}{{ else }}{{ int .Values.replicaCount }}{{ end }}
{{- end }}

{{/*
Refuses a release that would run several replicas without shared storage and the management
lease: they would each write their own SQLite file and each manage the fleet.
*/}}
{{- define "airlock.validate" -}}
{{- if gt (int (include "airlock.maxPods" .)) 1 }}
{{- $what := ternary (printf "autoscaling.maxReplicas=%d" (int .Values.autoscaling.maxReplicas)) (printf "replicaCount=%d" (int .Values.replicaCount)) .Values.autoscaling.enabled }}
{{- $backend := dig "persistence" "backend" "sqlite" .Values.config }}
{{- if ne $backend "postgresql" }}
{{- fail (printf "%s needs config.persistence.backend: postgresql (found %s): replicas cannot share SQLite" $what $backend) }}
{{- end }}
{{- if not (hasKey .Values.config "coordination") }}
{{- fail (printf "%s needs a config.coordination block (the management lease): without it every replica would manage the fleet" $what) }}
{{- end }}
{{- end }}
{{- if hasKey .Values.config "coordination" }}
{{- if .Values.exampleServers.enabled }}
{{- fail "exampleServers.enabled must be false with config.coordination: the example servers are local (subprocess) and coordination needs every server remote" }}
{{- end }}
{{- range $id, $server := (default dict .Values.config.mcp_servers) }}
{{- $mode := dig "mode" "subprocess" (default dict $server) }}
{{- if not (has $mode (list "remote" "group")) }}
{{- fail (printf "config.mcp_servers.%s.mode must be remote with config.coordination (found %s): a local server would run on the lease holder only" $id $mode) }}
{{- end }}
{{- end }}
{{- end }}
{{- if .Values.persistence.enabled }}
{{- if .Values.dataVolume.existingClaim }}
{{- fail "persistence.enabled and dataVolume.existingClaim both name the data volume: keep one" }}
{{- end }}
{{- if eq (dig "persistence" "backend" "sqlite" .Values.config) "postgresql" }}
{{- fail "persistence.enabled keeps SQLite files: with config.persistence.backend postgresql the claim would stay empty" }}
{{- end }}
{{- end }}
{{- if and .Values.autoscaling.enabled (gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- fail (printf "autoscaling.minReplicas (%d) must not exceed autoscaling.maxReplicas (%d)" (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- end }}
{{- end }}

{{/* The claim holding /app/data (the SQLite files), or nothing when the data is an emptyDir. */}}
{{- define "airlock.dataClaim" -}}
{{- if .Values.persistence.enabled }}{{ include "airlock.fullname" . }}-data{{ else }}{{ .Values.dataVolume.existingClaim }}{{ end }}
{{- end }}

{{/*
Scheduling: `affinity` as written, else the soft anti-affinity that prefers one pod per node.
*/}}
{{- define "airlock.affinity" -}}
{{- if .Values.affinity }}
{{- toYaml .Values.affinity }}
{{- else if .Values.podAntiAffinity.enabled }}
podAntiAffinity:
  preferredDuringSchedulingIgnoredDuringExecution:
    - weight: {{ .Values.podAntiAffinity.weight }}
      podAffinityTerm:
        topologyKey: {{ .Values.podAntiAffinity.topologyKey }}
        labelSelector:
          matchLabels:
            {{- include "airlock.selectorLabels" . | nindent 12 }}
{{- end }}
{{- end }}

{{/* `topologySpreadConstraints` as written, else one spreading pods over zones without blocking. */}}
{{- define "airlock.topologySpread" -}}
{{- if .Values.topologySpreadConstraints }}
{{- toYaml .Values.topologySpreadConstraints }}
{{- else if .Values.topologySpread.enabled }}
- maxSkew: {{ .Values.topologySpread.maxSkew }}
  topologyKey: {{ .Values.topologySpread.topologyKey }}
  whenUnsatisfiable: {{ .Values.topologySpread.whenUnsatisfiable }}
  labelSelector:
    matchLabels:
      {{- include "airlock.selectorLabels" . | nindent 6 }}
{{- end }}
{{- end }}

{{/*
The configuration template: config from the values, with `${...}` references where a referenced
Secret provides the value. Rendered by the init container (deploy/render-config.mjs).
*/}}
{{- define "airlock.config" -}}
{{- $config := deepCopy .Values.config }}
{{- if .Values.exampleServers.enabled }}
{{- /* Absolute paths: a subprocess server runs in the configuration file's directory. */}}
{{- $servers := default dict (get $config "mcp_servers") }}
{{- $_ := set $servers "math" (dict "mode" "subprocess" "command" (list "node" "/app/examples/servers/arithmetic.mjs") "description" "Arithmetic tools (add, subtract, multiply, divide, sum)") }}
{{- $_ := set $servers "text" (dict "mode" "subprocess" "command" (list "node" "/app/examples/servers/text.mjs") "description" "Text tools (echo, uppercase, lowercase, reverse, word_count)") }}
{{- $_ := set $config "mcp_servers" $servers }}
{{- end }}
{{- if .Values.secrets.database.existingSecret }}
{{- $persistence := dig "persistence" dict $config }}
{{- $postgresql := dig "postgresql" dict $persistence }}
{{- $_ := set $postgresql "connectionString" "${AIRLOCK_DATABASE_URL}" }}
{{- $_ := set $persistence "postgresql" $postgresql }}
{{- $_ := set $config "persistence" $persistence }}
{{- end }}
{{- if .Values.secrets.redis.existingSecret }}
{{- if has "truncation" .Values.secrets.redis.targets }}
{{- $truncation := dig "truncation" dict $config }}
{{- $_ := set $truncation "redis_url" "${AIRLOCK_REDIS_URL}" }}
{{- $_ := set $config "truncation" $truncation }}
{{- end }}
{{- if has "approvals" .Values.secrets.redis.targets }}
{{- $approvals := dig "approvals" dict $config }}
{{- $delivery := dig "delivery" dict $approvals }}
{{- $_ := set $delivery "redis_url" "${AIRLOCK_REDIS_URL}" }}
{{- $_ := set $approvals "delivery" $delivery }}
{{- $_ := set $config "approvals" $approvals }}
{{- end }}
{{- end }}
{{- if .Values.secrets.oidc.existingSecret }}
{{- $auth := dig "auth" dict $config }}
{{- $oidc := dig "oidc" dict $auth }}
{{- range $field, $key := .Values.secrets.oidc.items }}
{{- $_ := set $oidc $field (printf "${AIRLOCK_OIDC_%s}" (upper $field)) }}
{{- end }}
{{- $_ := set $auth "oidc" $oidc }}
{{- $_ := set $config "auth" $auth }}
{{- end }}
{{- toYaml $config }}
{{- end }}

{{/* Variables taken from the referenced Secrets: only the init container that renders needs them. */}}
{{- define "airlock.secretEnv" -}}
{{- with .Values.secrets.database.existingSecret }}
- name: AIRLOCK_DATABASE_URL
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.secrets.database.key }}
{{- end }}
{{- with .Values.secrets.redis.existingSecret }}
- name: AIRLOCK_REDIS_URL
  valueFrom:
    secretKeyRef:
      name: {{ . }}
      key: {{ $.Values.secrets.redis.key }}
{{- end }}
{{- if .Values.secrets.oidc.existingSecret }}
{{- range $field, $key := .Values.secrets.oidc.items }}
- name: {{ printf "AIRLOCK_OIDC_%s" (upper $field) }}
  valueFrom:
    secretKeyRef:
      name: {{ $.Values.secrets.oidc.existingSecret }}
      key: {{ $key }}
{{- end }}
{{- end }}
{{- end }}

{{/* The extra environment of both containers. */}}
{{- define "airlock.extraEnv" -}}
{{- with .Values.env }}
{{ toYaml . }}
{{- end }}
{{- end }}
