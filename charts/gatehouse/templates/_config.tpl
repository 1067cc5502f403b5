{{/*
gatehouse.yaml: `config` from the values, with what the chart owns filled in. Secrets never
appear in it: they are ${VAR} references the gateway resolves from the container's
environment at start, so the ConfigMap can be read by anyone who can read the Deployment.
*/}}
{{- define "gatehouse.config" -}}
{{- /* First, so a refusal is the error Helm reports, not what bad values break below. */ -}}
{{- include "gatehouse.validate" . -}}
{{- $cfg := deepCopy (.Values.config | default dict) -}}

{{- /* The pod's port and every interface: the Service, probes and peers reach it by pod IP. */ -}}
{{- $listen := dict "host" .Values.listen.host "port" (int .Values.containerPort) -}}
{{- with $cfg.listen -}}{{- with .path -}}{{- $_ := set $listen "path" . -}}{{- end -}}{{- end -}}
{{- $_ := set $cfg "listen" $listen -}}

{{- $s := .Values.shutdown -}}
{{- $_ := set $cfg "shutdown" (dict "drainDelay" (printf "%ds" (int $s.drainDelaySeconds)) "deadline" (printf "%ds" (int $s.deadlineSeconds))) -}}

{{- $audit := $cfg.audit | default dict -}}
{{- $_ := set $audit "dir" (include "gatehouse.auditDir" .) -}}
{{- $_ := set $cfg "audit" $audit -}}

{{- if include "gatehouse.hasSessionSecret" . -}}
{{- $sessions := $cfg.sessions | default dict -}}
{{- $_ := set $sessions "secret" (ternary "${GATEHOUSE_SESSION_SECRET}" "${GATEHOUSE_SESSION_SECRET:-}" (eq (include "gatehouse.sessionSecretRequired" .) "true")) -}}
{{- $_ := set $cfg "sessions" $sessions -}}
{{- end -}}

{{- if include "gatehouse.hasRedis" . -}}
{{- $limits := $cfg.rateLimits | default dict -}}
{{- $_ := set $limits "store" "redis" -}}
{{- $_ := set $limits "redisUrl" "${GATEHOUSE_REDIS_URL}" -}}
{{- $_ := set $cfg "rateLimits" $limits -}}
{{- end -}}

{{- if include "gatehouse.approvalsOn" . -}}
{{- $approvals := $cfg.approvals -}}
{{- /* Empty entries are skipped by the gateway, so the second key is there only when set. */ -}}
{{- $_ := set $approvals "keys" (list "${GATEHOUSE_APPROVAL_KEY}" "${GATEHOUSE_APPROVAL_KEY_PREVIOUS:-}") -}}
{{- if include "gatehouse.hasRedis" . -}}
{{- $_ := set $approvals "store" "redis" -}}
{{- $_ := set $approvals "redisUrl" "${GATEHOUSE_REDIS_URL}" -}}
{{- end -}}
{{- end -}}

{{- if .Values.policies -}}
{{- $policy := $cfg.policy | default dict -}}
{{- $_ := set $policy "dir" (printf "%s/policies" (include "gatehouse.configDir" .)) -}}
{{- $_ := set $cfg "policy" $policy -}}
{{- end -}}

{{- if .Values.secrets.apiKeys -}}
{{- $_ := set $cfg.identity "apiKeysFile" (printf "%s/api-keys.yaml" (include "gatehouse.secretsDir" .)) -}}
{{- end -}}

{{- toYaml $cfg -}}
{{- end -}}
