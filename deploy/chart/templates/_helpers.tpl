{{- define "serve.fullname" -}}
{{- default .Release.Name .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "serve.labels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "serve.selector" -}}
app.kubernetes.io/name: {{ .root.Chart.Name }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "serve.policyConfigMap" -}}
{{- if .Values.policy.configMap -}}
{{ .Values.policy.configMap }}
{{- else if .Values.policy.files -}}
{{ include "serve.fullname" . }}-policy
{{- end -}}
{{- end -}}

{{- define "serve.secretEnv" -}}
- name: {{ .name }}
  valueFrom:
    secretKeyRef:
      name: {{ required (printf "%s: the Secret's name" .what) .ref.secretName }}
      key: {{ required (printf "%s: the key in the Secret" .what) .ref.key }}
      {{- if .optional }}
      optional: true
      {{- end }}
{{- end -}}

{{/* The container's environment: every secret by reference, never a value. */}}
{{- define "serve.env" -}}
- name: HOME
  value: /home/clusterplane
- name: PULUMI_HOME
  value: /home/clusterplane/.pulumi
- name: TMPDIR
  value: /tmp
- name: PULUMI_SKIP_UPDATE_CHECK
  value: "true"
{{ include "serve.secretEnv" (dict "name" "CLUSTERPLANE_DATABASE_URL" "ref" .Values.database "what" "database") }}
{{ include "serve.secretEnv" (dict "name" "PULUMI_BACKEND_URL" "ref" .Values.backend "what" "backend") }}
{{- if not .Values.secrets.provider }}
{{ include "serve.secretEnv" (dict "name" "PULUMI_CONFIG_PASSPHRASE" "ref" .Values.secrets.passphrase "what" "secrets.passphrase") }}
{{- end }}
{{- with .Values.clouds.digitalocean }}
{{ include "serve.secretEnv" (dict "name" "DIGITALOCEAN_TOKEN" "ref" . "what" "clouds.digitalocean" "optional" true) }}
{{- if .apiURL }}
- name: DIGITALOCEAN_API_URL
  value: {{ .apiURL | quote }}
{{- end }}
{{- end }}
{{- with .Values.clouds.civo }}
{{ include "serve.secretEnv" (dict "name" "CIVO_TOKEN" "ref" . "what" "clouds.civo" "optional" true) }}
{{- if .apiURL }}
- name: CIVO_API_URL
  value: {{ .apiURL | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/* The pod of one Deployment: .root, .component, .workers. */}}
{{- define "serve.pod" -}}
{{- $v := .root.Values -}}
metadata:
  labels:
    {{- include "serve.selector" . | nindent 4 }}
    {{- with $v.podLabels }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
  {{- with $v.podAnnotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  serviceAccountName: {{ include "serve.fullname" .root }}
  automountServiceAccountToken: false
  terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
  securityContext:
    {{- toYaml $v.podSecurityContext | nindent 4 }}
  {{- with $v.imagePullSecrets }}
  imagePullSecrets:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  containers:
    - name: serve
      image: "{{ required "image.repository: the registry and name you pushed the clusterplane image to (make images builds it: deploy/README.md)" $v.image.repository }}:{{ $v.image.tag | default .root.Chart.AppVersion }}"
      imagePullPolicy: {{ $v.image.pullPolicy }}
      workingDir: /home/clusterplane
      args:
        - serve
        - --listen=0.0.0.0:{{ $v.port }}
        - --workers={{ .workers }}
        - --stack-timeout={{ $v.serve.stackTimeout }}
        - --drift-every={{ $v.serve.driftEvery }}
        - --log-format={{ $v.serve.logFormat }}
        {{- if lt (int $v.terminationGracePeriodSeconds) 300 }}
        {{- fail (printf "terminationGracePeriodSeconds: %v is under 300: serve's --shutdown-grace is 300 seconds less, the time its interrupted engines are given to stop" $v.terminationGracePeriodSeconds) }}
        {{- end }}
        - --shutdown-grace={{ sub (int $v.terminationGracePeriodSeconds) 300 }}s
        - --shutdown-delay={{ $v.serve.shutdownDelay }}
        {{- with $v.secrets.provider }}
        - --secrets-provider={{ . }}
        {{- end }}
        {{- if include "serve.policyConfigMap" .root }}
        - --policy=/etc/clusterplane/policy
        {{- end }}
        {{- with $v.serve.oidcIssuer }}
        - --oidc-issuer={{ . }}
        {{- end }}
        {{- with $v.serve.oidcAudience }}
        - --oidc-audience={{ . }}
        {{- end }}
        {{- with $v.serve.roleClaim }}
        - --role-claim={{ . }}
        {{- end }}
        {{- range $v.serve.trustedProxies }}
        - --trusted-proxy={{ . }}
        {{- end }}
        {{- range $v.serve.extraArgs }}
        - {{ . | quote }}
        {{- end }}
      env:
        {{- include "serve.env" .root | nindent 8 }}
      {{- with $v.secrets.envFromSecret }}
      envFrom:
        - secretRef:
            name: {{ . }}
      {{- end }}
      ports:
        - name: http
          containerPort: {{ $v.port }}
          protocol: TCP
      startupProbe:
        httpGet:
          path: /healthz
          port: http
        periodSeconds: 2
        failureThreshold: 60
      livenessProbe:
        httpGet:
          path: /healthz
          port: http
        periodSeconds: 10
        timeoutSeconds: 5
        failureThreshold: 3
      readinessProbe:
        httpGet:
          path: /readyz
          port: http
        periodSeconds: 5
        timeoutSeconds: 5
        failureThreshold: 2
      resources:
        {{- toYaml $v.resources | nindent 8 }}
      securityContext:
        {{- toYaml $v.securityContext | nindent 8 }}
      volumeMounts:
        - name: home
          mountPath: /home/clusterplane
        - name: tmp
          mountPath: /tmp
        {{- if include "serve.policyConfigMap" .root }}
        - name: policy
          mountPath: /etc/clusterplane/policy
          readOnly: true
        {{- end }}
  volumes:
    # The root file system is read-only: the Pulumi CLI writes its home (workspaces, plugin
    # cache, locks) and temporary files here.
    - name: home
      emptyDir: {}
    - name: tmp
      emptyDir: {}
    {{- with include "serve.policyConfigMap" .root }}
    - name: policy
      configMap:
        name: {{ . }}
    {{- end }}
  {{- with $v.nodeSelector }}
  nodeSelector:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.tolerations }}
  tolerations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
  {{- with $v.affinity }}
  affinity:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
