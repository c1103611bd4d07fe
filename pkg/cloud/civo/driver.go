package civo

import (
	"github.com/pkg/errors"

	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
)

// ID names Civo.
const ID cloud.ID = "civo"

// Driver is Civo as clusterplane asks it (cloud.Driver).
type Driver struct{}

var _ cloud.Driver = Driver{}

// ID is Civo's.
func (Driver) ID() cloud.ID { return ID }

// The environment variables an empty provider config's token and API URL fall back to, as the
// Civo provider plugin's own do.
const (
	TokenEnv  = "CIVO_TOKEN"
	APIURLEnv = "CIVO_API_URL"
)

// Env is Civo's environment: its name, TokenEnv and APIURLEnv, and its own API (a list of
// regions answers a probe cheaply). Resolve on it decides where a Civo token may go.
var Env = cloudapi.Cloud{Name: "Civo", TokenEnv: TokenEnv, URLEnv: APIURLEnv, API: "https://api.civo.com",
	Probe: "/v2/regions"}

// Env is Civo's environment: CIVO_TOKEN, CIVO_API_URL and api.civo.com.
func (Driver) Env() cloudapi.Cloud { return Env }

// ProviderConfig is the Civo kinds' provider config.
func (Driver) ProviderConfig() cloud.ProviderConfig {
	return cloud.ProviderConfig{Message: (&civov1.CivoProviderConfig{}).ProtoReflect().Descriptor().FullName(),
		Token: civov1.CivoProviderConfigFieldApiToken, URL: civov1.CivoProviderConfigFieldApiUrl}
}

// Requests: Civo states no rate limit, and no estimate counts its pages.
func (Driver) Requests() cloud.Requests { return cloud.Requests{ClustersPerPage: PerPage} }

// PoolLabel is the node label Civo puts on every node of a pool: the pool's id
// (kubernetes/autoscaler, cluster-autoscaler/cloudprovider/civo/civo_node_group.go,
// TemplateNodeInfo, sets that label to the node group's id, which is the pool's id).
const PoolLabel = "kubernetes.civo.com/civo-node-pool"

// PoolSelector selects a pool's nodes by its id (kubernetes.civo.com/civo-node-pool=<id>): Civo
// pools have no name but their id.
func (Driver) PoolSelector(_, id string) (map[string]string, error) {
	if id == "" {
		return nil, errors.New("a Civo pool's nodes are found by the pool's id, and it has none")
	}
	return map[string]string{PoolLabel: id}, nil
}

// ProviderSDK is the Go SDK module of the Pulumi provider plugin the kinds' programs use.
func (Driver) ProviderSDK() string { return "github.com/pulumi/pulumi-civo/sdk/v2" }

// PluginEnv: the Civo plugin runs in clusterplane's environment as it is.
func (Driver) PluginEnv() map[string]string { return nil }

// Credentials are the other variables the provider reads a credential from (terraform-provider-civo v1.1.4).
func (Driver) Credentials() []string { return []string{"CIVO_CREDENTIAL_FILE"} }

// ProviderSDKVersion is go.mod's version of ProviderSDK.
func (Driver) ProviderSDKVersion() string { return "2.4.8" }
