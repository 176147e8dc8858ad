{{/*
The chart's name, truncated to the 63 characters DNS labels allow.
*/}}
{{- define "zlake.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of the release's objects: the release name, followed by the
chart's unless the release name already holds it.
*/}}
{{- define "zlake.fullname" -}}
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

{{- define "zlake.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "zlake.selectorLabels" -}}
app.kubernetes.io/name: {{ include "zlake.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "zlake.labels" -}}
helm.sh/chart: {{ include "zlake.chart" . }}
{{ include "zlake.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | quote }}
app.kubernetes.io/component: server
app.kubernetes.io/part-of: zlake
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "zlake.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "zlake.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "zlake.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion | toString) }}
{{- end }}

{{/*
Whether the lake is on S3 (what several replicas can share).
*/}}
{{- define "zlake.onS3" -}}
{{- if hasPrefix "s3://" .Values.lake.location }}true{{ end }}
{{- end }}

{{/*
Whether the chart creates a Secret: inline credentials not overridden by
an existing Secret.
*/}}
{{- define "zlake.inlineS3Credentials" -}}
{{- $c := .Values.s3.credentials }}
{{- if and (not $c.existingSecret) (or $c.accessKeyId $c.secretAccessKey) }}true{{ end }}
{{- end }}

{{- define "zlake.inlineRedisPassword" -}}
{{- if and (not .Values.redis.auth.existingSecret) .Values.redis.auth.password }}true{{ end }}
{{- end }}

{{- define "zlake.createSecret" -}}
{{- if or (include "zlake.inlineS3Credentials" .) (include "zlake.inlineRedisPassword" .) }}true{{ end }}
{{- end }}

{{- define "zlake.secretName" -}}
{{- printf "%s-credentials" (include "zlake.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
Seconds in a Go duration of hours, minutes and seconds ("30s", "1m30s").
*/}}
{{- define "zlake.durationSeconds" -}}
{{- $d := toString . }}
{{- $h := regexFind "[0-9]+h" $d | trimSuffix "h" | default "0" | atoi }}
{{- $m := regexFind "[0-9]+m" $d | trimSuffix "m" | default "0" | atoi }}
{{- $s := regexFind "[0-9]+s" $d | trimSuffix "s" | default "0" | atoi }}
{{- add (mul $h 3600) (mul $m 60) $s }}
{{- end }}

{{/*
The ConfigMap holding the JSON Web Key Set: the user's, or the chart's.
*/}}
{{- define "zlake.jwksConfigMap" -}}
{{- .Values.auth.jwks.existingConfigMap | default (printf "%s-auth-jwks" (include "zlake.fullname" .)) }}
{{- end }}

{{/*
Checks that values.schema.json cannot express. Included by the Deployment.
*/}}
{{- define "zlake.validate" -}}
{{- $replicas := int .Values.replicaCount }}
{{- if .Values.autoscaling.enabled }}{{ $replicas = int .Values.autoscaling.maxReplicas }}{{ end }}
{{- if gt $replicas 1 }}
{{- if not (include "zlake.onS3" .) }}
{{- fail (printf "zlake: %d replicas need a shared lake: set lake.location to s3://bucket/prefix (got %q)" $replicas .Values.lake.location) }}
{{- end }}
{{- if not .Values.redis.url }}
{{- fail (printf "zlake: %d replicas need Redis to coordinate: set redis.url" $replicas) }}
{{- end }}
{{- end }}
{{- if and .Values.autoscaling.enabled (gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- fail "zlake: autoscaling.minReplicas is larger than autoscaling.maxReplicas" }}
{{- end }}
{{- $grace := include "zlake.durationSeconds" .Values.config.shutdownGrace | int }}
{{- $needed := add $grace (int .Values.lifecycle.preStopSleepSeconds) }}
{{- if le (int .Values.terminationGracePeriodSeconds) $needed }}
{{- fail (printf "zlake: terminationGracePeriodSeconds (%d) must exceed config.shutdownGrace (%ds) plus lifecycle.preStopSleepSeconds (%d)" (int .Values.terminationGracePeriodSeconds) $grace (int .Values.lifecycle.preStopSleepSeconds)) }}
{{- end }}
{{- $c := .Values.s3.credentials }}
{{- if and (not $c.existingSecret) (or $c.accessKeyId $c.secretAccessKey) (not (and $c.accessKeyId $c.secretAccessKey)) }}
{{- fail "zlake: set both s3.credentials.accessKeyId and s3.credentials.secretAccessKey, or neither" }}
{{- end }}
{{- if and .Values.tracing.enabled (not .Values.tracing.endpoint) }}
{{- fail "zlake: tracing.enabled needs tracing.endpoint" }}
{{- end }}
{{- with .Values.auth }}
{{- if and .enabled (not (and .audience .clientId .domain)) }}
{{- fail "zlake: auth.enabled needs auth.audience, auth.clientId and auth.domain" }}
{{- end }}
{{- if and .enabled (not (or .jwks.existingConfigMap .jwks.inline)) }}
{{- fail "zlake: auth.enabled needs the key set: auth.jwks.existingConfigMap or auth.jwks.inline" }}
{{- end }}
{{- end }}
{{- end }}
