{{/*
Refusals for values that would deploy something broken. values.schema.json checks each
value's shape; these check values against each other. Every message says what to set.
*/}}
{{- define "gatehouse.validate" -}}
{{- $v := .Values -}}
{{- if include "gatehouse.multiReplica" . -}}
{{- if not (include "gatehouse.hasSessionSecret" .) -}}
{{- fail "more than one replica (replicaCount > 1 or autoscaling.enabled) needs one session secret shared by every replica, or a legacy session opened on one pod fails on the others: set secrets.sessionSecret (openssl rand -hex 32) or secrets.existingSecret (key session-secret)" -}}
{{- end -}}
{{- if not (include "gatehouse.hasRedis" .) -}}
{{- fail "more than one replica (replicaCount > 1 or autoscaling.enabled) needs Redis, or each pod counts rate limits and holds pending approvals on its own: set redis.url or redis.existingSecret" -}}
{{- end -}}
{{- if and $v.audit.persistence.enabled (not $v.audit.persistence.existingClaim) (not (has "ReadWriteMany" $v.audit.persistence.accessModes)) -}}
{{- fail "audit.persistence with more than one replica needs audit.persistence.accessModes to include ReadWriteMany (every pod mounts the claim), or an audit.persistence.existingClaim that allows it" -}}
{{- end -}}
{{- end -}}
{{- $host := $v.listen.host -}}
{{- $loopback := or (has $host (list "::1" "localhost")) (hasPrefix "127." $host) -}}
{{- if and (not $v.config.identity) (not $loopback) -}}
{{- fail "config.identity is required: the gateway listens on the pod network and refuses to start without an identity section. Set API keys (secrets.apiKeys, with config.identity.resource), OAuth (config.identity.jwt), or allow anonymous callers explicitly: config.identity: { resource: <URL of the MCP endpoint>, anonymous: { enabled: true } }" -}}
{{- end -}}
{{- $s := $v.shutdown -}}
{{- /* After the deadline, `gatehouse serve` allows itself 10 s to close before it exits anyway. */ -}}
{{- $needed := add (int $s.preStopSeconds) (int $s.drainDelaySeconds) (int $s.deadlineSeconds) 10 -}}
{{- if le (int $s.terminationGracePeriodSeconds) $needed -}}
{{- fail (printf "shutdown.terminationGracePeriodSeconds (%d) must be longer than shutdown.preStopSeconds + drainDelaySeconds + deadlineSeconds + the 10 s the gateway may take to close (%d), or Kubernetes kills the gateway before it has drained" (int $s.terminationGracePeriodSeconds) $needed) -}}
{{- end -}}
{{- if and (include "gatehouse.approvalsOn" .) (not $v.secrets.approvalKeys) (not $v.secrets.existingSecret) -}}
{{- fail "config.approvals needs a key sealing approval state: set secrets.approvalKeys (openssl rand -hex 32) or secrets.existingSecret (key approval-key)" -}}
{{- end -}}
{{- if and $v.secrets.apiKeys (not $v.config.identity) -}}
{{- fail "secrets.apiKeys needs config.identity (at least identity.resource, the public URL of the MCP endpoint)" -}}
{{- end -}}
{{- if and $v.policies $v.config.policy -}}
{{- if hasKey $v.config.policy "dir" -}}
{{- fail "config.policy.dir and policies both set: the chart mounts policies at /etc/gatehouse/policies; drop config.policy.dir, or drop policies and mount your own directory (extraVolumes)" -}}
{{- end -}}
{{- end -}}
{{- end -}}
