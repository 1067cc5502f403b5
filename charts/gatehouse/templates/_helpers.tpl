{{/*
Names, labels and the facts several templates share. Values are never read twice in two
ways: every template asks these.
*/}}

{{- define "gatehouse.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* <release>-<chart>, or the release name alone when it already holds the chart's name. */}}
{{- define "gatehouse.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := include "gatehouse.name" . -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "gatehouse.selectorLabels" -}}
app.kubernetes.io/name: {{ include "gatehouse.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "gatehouse.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "gatehouse.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "gatehouse.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "gatehouse.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "gatehouse.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* "true" when more than one pod may run at once; empty otherwise. */}}
{{- define "gatehouse.multiReplica" -}}
{{- if or (gt (int .Values.replicaCount) 1) .Values.autoscaling.enabled -}}true{{- end -}}
{{- end -}}

{{/* The Secret the pods read: the user's, or the chart's own (when it has anything to hold). */}}
{{- define "gatehouse.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{- .Values.secrets.existingSecret -}}
{{- else if include "gatehouse.chartSecretNeeded" . -}}
{{- include "gatehouse.fullname" . -}}
{{- end -}}
{{- end -}}

{{- define "gatehouse.chartSecretNeeded" -}}
{{- $s := .Values.secrets -}}
{{- if and (not $s.existingSecret) (or $s.sessionSecret $s.approvalKeys $s.apiKeys) -}}true{{- end -}}
{{- end -}}

{{- define "gatehouse.hasSessionSecret" -}}
{{- if or .Values.secrets.sessionSecret .Values.secrets.existingSecret -}}true{{- end -}}
{{- end -}}

{{/* Without a secret the key may be absent (one replica: a random key per process). */}}
{{- define "gatehouse.sessionSecretRequired" -}}
{{- if or (include "gatehouse.multiReplica" .) .Values.secrets.sessionSecret -}}true{{- end -}}
{{- end -}}

{{- define "gatehouse.hasRedis" -}}
{{- if or .Values.redis.url .Values.redis.existingSecret -}}true{{- end -}}
{{- end -}}

{{- define "gatehouse.approvalsOn" -}}
{{- if and .Values.config (hasKey .Values.config "approvals") .Values.config.approvals -}}true{{- end -}}
{{- end -}}

{{/* Where the pod's files are. The gateway reads them from the config, so they are set once here. */}}
{{- define "gatehouse.configDir" -}}/etc/gatehouse{{- end -}}
{{- define "gatehouse.secretsDir" -}}/etc/gatehouse-secrets{{- end -}}
{{- define "gatehouse.stateDir" -}}/var/lib/gatehouse{{- end -}}

{{/*
One directory holds one gateway's hash chain, so pods sharing a claim write one directory
each; ${POD_NAME} is read by the gateway from the environment (the downward API sets it).
*/}}
{{- define "gatehouse.auditDir" -}}
{{- if and .Values.audit.persistence.enabled (include "gatehouse.multiReplica" .) -}}
{{- include "gatehouse.stateDir" . }}/audit/${POD_NAME}
{{- else -}}
{{- include "gatehouse.stateDir" . }}/audit
{{- end -}}
{{- end -}}

{{/* A policy file name is a ConfigMap key too: "policy.<file name>". */}}
{{- define "gatehouse.policyKey" -}}policy.{{ . }}{{- end -}}
