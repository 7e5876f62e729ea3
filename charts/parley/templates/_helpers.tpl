{{/* Prefix of every object name: the release name when it contains the chart name, else "<release>-parley".
40 characters leave room for the longest suffix within the 63 of a DNS label. */}}
{{- define "parley.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Labels on every object's metadata: kustomize's part-of (manifests/base) plus Helm's own. */}}
{{- define "parley.labels" -}}
app.kubernetes.io/part-of: parley
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end -}}

{{/* "repository:tag" of images.<component>, the tag defaulting to appVersion. Call with (list $ "operator"). */}}
{{- define "parley.image" -}}
{{- $root := index . 0 -}}
{{- $img := index $root.Values.images (index . 1) -}}
{{- printf "%s:%s" $img.repository (default $root.Chart.AppVersion $img.tag) -}}
{{- end -}}

{{/* imagePullPolicy line when images.<component>.pullPolicy is set. Call with (list $ "operator"). */}}
{{- define "parley.pullPolicy" -}}
{{- $img := index (index . 0).Values.images (index . 1) -}}
{{- with $img.pullPolicy }}
imagePullPolicy: {{ . }}
{{- end -}}
{{- end -}}

{{/* nodeSelector, tolerations, affinity and pull secrets of a pod the chart runs. Call with (list $ .Values.controller). */}}
{{- define "parley.podPlacement" -}}
{{- $root := index . 0 -}}
{{- $v := index . 1 -}}
{{- with $root.Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with $v.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end -}}
{{- end -}}

{{- define "parley.internalSecretName" -}}
{{- .Values.secrets.internal.existingSecret | default (printf "%s-internal" (include "parley.fullname" .)) -}}
{{- end -}}

{{- define "parley.turnSecretName" -}}
{{- .Values.secrets.turn.existingSecret | default (printf "%s-turn" (include "parley.fullname" .)) -}}
{{- end -}}

{{- define "parley.ticketKeySecretName" -}}
{{- .Values.secrets.ticketKey.existingSecret | default (printf "%s-ticket-key" (include "parley.fullname" .)) -}}
{{- end -}}

{{- define "parley.recordingsS3SecretName" -}}
{{- .Values.recordings.credentials.existingSecret | default (printf "%s-recordings-s3" (include "parley.fullname" .)) -}}
{{- end -}}

{{/* Secret and key holding the database password the controller uses. */}}
{{- define "parley.dbSecretName" -}}
{{- if .Values.postgresql.enabled -}}
{{- .Values.postgresql.auth.existingSecret | default (printf "%s-db" (include "parley.fullname" .)) -}}
{{- else -}}
{{- required "postgresql.external.existingSecret is required when postgresql.enabled=false" .Values.postgresql.external.existingSecret -}}
{{- end -}}
{{- end -}}

{{- define "parley.dbPasswordKey" -}}
{{- if .Values.postgresql.enabled -}}password{{- else -}}{{ .Values.postgresql.external.passwordKey }}{{- end -}}
{{- end -}}

{{- define "parley.dbUrl" -}}
{{- if .Values.postgresql.enabled -}}
{{- printf "jdbc:postgresql://%s-postgres:%d/%s" (include "parley.fullname" .) (int .Values.postgresql.port) .Values.postgresql.auth.database -}}
{{- else -}}
{{- required "postgresql.external.jdbcUrl is required when postgresql.enabled=false" .Values.postgresql.external.jdbcUrl -}}
{{- end -}}
{{- end -}}

{{- define "parley.dbUser" -}}
{{- if .Values.postgresql.enabled -}}{{ .Values.postgresql.auth.username }}{{- else -}}{{ .Values.postgresql.external.username }}{{- end -}}
{{- end -}}

{{- define "parley.etcdEndpoints" -}}
{{- if .Values.etcd.enabled -}}
{{- printf "http://%s-etcd:%d" (include "parley.fullname" .) (int .Values.etcd.ports.client) -}}
{{- else -}}
{{- required "etcd.external.endpoints is required when etcd.enabled=false" .Values.etcd.external.endpoints -}}
{{- end -}}
{{- end -}}

{{/* The data of a chart-made Secret as it is in the cluster (so upgrades keep random values), or empty. */}}
{{- define "parley.existingData" -}}
{{- $s := lookup "v1" "Secret" (index . 0).Release.Namespace (index . 1) -}}
{{- if $s -}}{{- toYaml (default dict $s.data) -}}{{- end -}}
{{- end -}}
