{{/* The release's base name, at most 52 characters so suffixes keep names under 63. */}}
{{- define "natsperf.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "natsperf.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "natsperf.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "natsperf.image" -}}
{{ printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) }}
{{- end -}}

{{- define "natsperf.controlURL" -}}
{{ .Values.control.url | default .Values.server.url }}
{{- end -}}

{{- define "natsperf.secretName" -}}
{{ .Values.auth.existingSecret | default (printf "%s-auth" (include "natsperf.fullname" .)) }}
{{- end -}}

{{- define "natsperf.resultsClaim" -}}
{{ .Values.results.persistence.existingClaim | default (printf "%s-results" (include "natsperf.fullname" .)) }}
{{- end -}}

{{/* Connection flags shared by agents and the coordinator: the loaded server, the control
server and the credentials file. A user, password or token stays in the Secret and reaches
natsperf as NATS_USER, NATS_PASSWORD or NATS_TOKEN (natsperf.authEnv), which it reads as the
nats CLI does: never in the arguments, so never in the process list. */}}
{{- define "natsperf.connectionArgs" -}}
- -s
- {{ .Values.server.url | quote }}
- --control
- {{ include "natsperf.controlURL" . | quote }}
{{- if eq .Values.auth.type "creds" }}
- --creds
- {{ printf "/etc/natsperf/auth/%s" .Values.auth.credsKey | quote }}
{{- end }}
{{- end -}}

{{- define "natsperf.authEnv" -}}
{{- $secret := include "natsperf.secretName" . -}}
{{- if eq .Values.auth.type "userPassword" }}
- name: NATS_USER
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: user
- name: NATS_PASSWORD
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: password
{{- else if eq .Values.auth.type "token" }}
- name: NATS_TOKEN
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: token
{{- end }}
{{- end -}}

{{- define "natsperf.authVolumeMount" -}}
{{- if eq .Values.auth.type "creds" }}
- name: auth
  mountPath: /etc/natsperf/auth
  readOnly: true
{{- end }}
{{- end -}}

{{- define "natsperf.authVolume" -}}
{{- if eq .Values.auth.type "creds" }}
- name: auth
  secret:
    secretName: {{ include "natsperf.secretName" . }}
    defaultMode: 0440
    items:
      - key: {{ .Values.auth.credsKey }}
        path: {{ .Values.auth.credsKey }}
{{- end }}
{{- end -}}

{{/* Non-root (distroless's nonroot user), no privilege escalation, read-only root filesystem:
natsperf writes only to /tmp and /results, which are volumes. */}}
{{- define "natsperf.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "natsperf.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
{{- end -}}

{{/* A scalar value as natsperf reads it on its command line. A values file's numbers arrive as
float64, which would print 1000000 as 1e+06: whole numbers are printed as integers. */}}
{{- define "natsperf.scalar" -}}
{{- if and (kindIs "float64" .) (eq . (float64 (int64 .))) -}}
{{ int64 . }}
{{- else -}}
{{ . }}
{{- end -}}
{{- end -}}
