{{- define "karpenter-clusterplane.name" -}}karpenter-clusterplane{{- end -}}
{{- define "karpenter-clusterplane.labels" -}}
app.kubernetes.io/name: karpenter-clusterplane
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end -}}
{{- define "karpenter-clusterplane.selector" -}}
app.kubernetes.io/name: karpenter-clusterplane
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
