{{/* Names, labels and shared pieces of the svc chart. */}}

{{- define "svc.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "svc.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* selector labels of one component: (dict "ctx" $ "component" "agent") */}}
{{- define "svc.selectorLabels" -}}
app.kubernetes.io/name: {{ .ctx.Chart.Name }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "svc.componentLabels" -}}
{{ include "svc.labels" .ctx }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{/* image of one component: (dict "ctx" $ "component" "agent") */}}
{{- define "svc.image" -}}
{{- printf "%s/%s:%s" .ctx.Values.image.repository .component (default .ctx.Chart.AppVersion .ctx.Values.image.tag) -}}
{{- end -}}

{{- define "svc.controllerHost" -}}
{{- printf "%s-controller.%s.svc" (include "svc.fullname" .) .Release.Namespace -}}
{{- end -}}

{{/* Pod Security Standard "restricted": non-root (the images' uid 65532), no privilege escalation, no
     capabilities, read-only root file system, RuntimeDefault seccomp. */}}
{{- define "svc.containerSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: [ALL]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* The part of the configuration shared by agent and controller (spec §8.2). */}}
{{- define "svc.sharedConfig" -}}
metricsPrefix: {{ .Values.metricsPrefix | quote }}
httpPort: {{ .Values.httpPort }}
metricsPort: {{ .Values.metricsPort }}
grpcPort: {{ .Values.grpcPort }}
logLevel: {{ .Values.logLevel | quote }}
logFormat: {{ .Values.logFormat | quote }}
failureDomainLabel: {{ .Values.failureDomainLabel | quote }}
{{- with .Values.checkers }}
checkers:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.topology }}
topology:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}

{{- define "svc.imagePullSecrets" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end -}}
