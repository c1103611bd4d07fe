package stackinput_test

import (
	"fmt"
	"strings"
	"testing"

	civopool "github.com/clusterplane/clusterplane/apis/clusterplane/provider/civo/civokubernetesnodepool/v1"
	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

// Promise: api-url-needs-its-own-token-and-https
func TestAStackInputsAPIURLNeedsItsOwnTokenAndHTTPSAndIsNamedAtItsLine(t *testing.T) {
	civoPool := `target:
  apiVersion: civo.clusterplane.dev/v1
  kind: CivoKubernetesNodePool
  metadata: {name: apps}
  spec:
    nodePoolName: apps
    cluster: {value: a1b2c3d4-0000-4000-8000-000000000001}
    region: fra1
    size: g4s.kube.medium
    nodeCount: 2
providerConfig: `
	const secret = "config-token-SENTINEL-never-shown"
	tests := []struct {
		name   string
		civo   bool
		config string
		want   []string // "line:column path rule", none when the stack input is valid
		envVar string   // the token variable the message names
	}{
		{name: "an API URL without a token", config: "\n  apiUrl: http://127.0.0.1:47999",
			want: []string{"14:3 providerConfig.apiUrl api_url.own_token"}, envVar: "DIGITALOCEAN_TOKEN"},
		{name: "a Civo API URL without a token", civo: true, config: "{apiUrl: 'https://api.civo.example'}",
			want: []string{"11:18 providerConfig.apiUrl api_url.own_token"}, envVar: "CIVO_TOKEN"},
		{name: "a plain http API URL without a token breaks both rules",
			config: "\n  apiUrl: http://api.attacker.example",
			want:   []string{"14:3 providerConfig.apiUrl api_url.https", "14:3 providerConfig.apiUrl api_url.own_token"}},
		{name: "a plain http API URL with its token", config: "\n  apiToken: " + secret + "\n  apiUrl: http://10.0.0.7:8080",
			want: []string{"15:3 providerConfig.apiUrl api_url.https"}},
		{name: "a Civo plain http API URL with its token", civo: true, config: "\n  apiToken: " + secret + "\n  apiUrl: http://api.civo.example",
			want: []string{"13:3 providerConfig.apiUrl api_url.https"}},
		{name: "an https API URL with its token", config: "\n  apiToken: " + secret + "\n  apiUrl: https://api.digitalocean.example"},
		{name: "a loopback http API URL with its token", config: "\n  apiToken: " + secret + "\n  apiUrl: http://127.0.0.1:47999"},
		{name: "a localhost API URL with its token", civo: true, config: "\n  apiToken: " + secret + "\n  apiUrl: http://localhost:8080/"},
		{name: "a token without an API URL", config: "\n  apiToken: " + secret},
		{name: "an empty provider config (the token and URL from the environment)", civo: true, config: "{}"},
		{name: "an API URL that is no URL is the uri rule's alone", config: "\n  apiToken: " + secret + "\n  apiUrl: 'not a url'",
			want: []string{"15:3 providerConfig.apiUrl string.uri"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var err error
			if tt.civo {
				err = stackinput.Parse([]byte(civoPool+tt.config+"\n"), "m.yaml", &civopool.CivoKubernetesNodePoolStackInput{})
			} else {
				_, err = parse(strings.Replace(stackInput("dev-fra1", "{}"), "{}", tt.config, 1))
			}
			var got []string
			for _, p := range stackinput.Problems(err) {
				got = append(got, fmt.Sprintf("%d:%d %s %s", p.Line, p.Column, p.Path, p.RuleID))
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("problems %q, want %q\n%v", got, tt.want, err)
			}
			if err == nil {
				return
			}
			if strings.Contains(err.Error(), "SENTINEL") || strings.Contains(err.Error(), "attacker") {
				t.Errorf("the error shows the token or the URL:\n%v", err)
			}
			if !strings.HasPrefix(err.Error(), "m.yaml:") && !strings.HasPrefix(err.Error(), "test.yaml:") {
				t.Errorf("the error does not start with the file's place:\n%v", err)
			}
			if tt.envVar != "" && !strings.Contains(err.Error(), tt.envVar) {
				t.Errorf("the error does not say the rule (%s goes only to the cloud's API):\n%v", tt.envVar, err)
			}
		})
	}
}
