package cloudapi

// Taint is a Kubernetes taint on a node pool's nodes as both clouds' APIs write it,
// {"key", "value", "effect"}. It is declared here, once, so that a caller reading pools of either
// cloud (discover) handles one type: digitalocean.Taint and civo.Taint are this type.
type Taint struct {
	Key    string `json:"key"`
	Value  string `json:"value"`
	Effect string `json:"effect"`
}
