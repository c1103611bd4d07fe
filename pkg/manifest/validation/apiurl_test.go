package validation_test

import (
	"strings"
	"testing"

	civov1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/v1"
	cluster "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/digitaloceankubernetescluster/v1"
	digitaloceanv1 "github.com/clusterplane/clusterplane/apis/clusterplane/provider/digitalocean/v1"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/validation"
	"google.golang.org/protobuf/proto"
)

// Promise: api-url-needs-its-own-token-and-https
func TestAProviderConfigsAPIURLNeedsTheConfigsOwnTokenAndHTTPSUnlessLoopback(t *testing.T) {
	const token = "token-SENTINEL-of-the-config"
	withDO := func(cfg *digitaloceanv1.DigitalOceanProviderConfig) proto.Message {
		return &cluster.DigitalOceanKubernetesClusterStackInput{
			Target: &cluster.DigitalOceanKubernetesCluster{
				ApiVersion: "digitalocean.clusterplane.dev/v1",
				Kind:       "DigitalOceanKubernetesCluster",
				Metadata:   &sharedv1.CloudResourceMetadata{Name: "dev-fra1"},
				Spec: &cluster.DigitalOceanKubernetesClusterSpec{
					ClusterName:       "dev-fra1",
					Region:            "fra1",
					KubernetesVersion: "1.31.1-do.5",
					DefaultNodePool:   &cluster.DigitalOceanKubernetesClusterDefaultNodePool{Size: "s-2vcpu-4gb", NodeCount: 2},
				},
			},
			ProviderConfig: cfg,
		}
	}
	tests := []struct {
		name string
		msg  proto.Message
		want []string // "field rule"
	}{
		{name: "no provider config", msg: withDO(nil)},
		{name: "a token alone", msg: withDO(&digitaloceanv1.DigitalOceanProviderConfig{ApiToken: token})},
		{name: "an https URL with its token",
			msg: withDO(&digitaloceanv1.DigitalOceanProviderConfig{ApiToken: token, ApiUrl: "https://api.example.com"})},
		{name: "a loopback URL with its token",
			msg: withDO(&digitaloceanv1.DigitalOceanProviderConfig{ApiToken: token, ApiUrl: "http://[::1]:8080"})},
		{name: "a loopback URL without a token",
			msg:  withDO(&digitaloceanv1.DigitalOceanProviderConfig{ApiUrl: "http://127.0.0.1:47999"}),
			want: []string{"provider_config.api_url api_url.own_token"}},
		{name: "a remote plain http URL with its token",
			msg:  withDO(&digitaloceanv1.DigitalOceanProviderConfig{ApiToken: token, ApiUrl: "http://api.example.com"}),
			want: []string{"provider_config.api_url api_url.https"}},
		{name: "a Civo provider config on its own: a URL without a token",
			msg:  &civov1.CivoProviderConfig{ApiUrl: "https://api.civo.example"},
			want: []string{"api_url api_url.own_token"}},
		{name: "a Civo provider config on its own: an ftp URL with its token",
			msg:  &civov1.CivoProviderConfig{ApiToken: token, ApiUrl: "ftp://127.0.0.1"},
			want: []string{"api_url api_url.https"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := validation.Validate(tt.msg)
			var got []string
			for _, v := range validation.Violations(err) {
				got = append(got, v.Field+" "+v.RuleID)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("violations %q, want %q (%v)", got, tt.want, err)
			}
			if err != nil && (strings.Contains(err.Error(), "SENTINEL") || strings.Contains(err.Error(), "example")) {
				t.Errorf("the error shows the token or the URL: %v", err)
			}
		})
	}
}
