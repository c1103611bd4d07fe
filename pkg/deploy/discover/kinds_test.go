package discover

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"google.golang.org/protobuf/encoding/protojson"
)

func TestAManifestIsTurnedIntoItsKindsMessageOrRefused(t *testing.T) {
	tests := []struct {
		name, kind string
		kinds      kinds.List
		doc        object
		want, err  string
	}{
		{name: "a known key and enum name are kept", kind: civoClusterKind, kinds: registry.Kinds(),
			doc: object{"spec": object{"clusterName": "api", "cni": "cilium"}}, want: `"cni":"cilium"`},
		{name: "an enum name the kind does not know is left out", kind: civoClusterKind, kinds: registry.Kinds(),
			doc: object{"spec": object{"clusterName": "api", "cni": "calico"}}, want: `{"spec":{"clusterName":"api"}}`},
		{name: "a misspelt key is refused", kind: civoClusterKind, kinds: registry.Kinds(),
			doc: object{"spec": object{"clustername": "api"}}, err: `unknown field "clustername"`},
		{name: "a kind not given is refused", kind: "NoSuchKind", kinds: registry.Kinds(),
			doc: object{}, err: "no such kind"},
		{name: "no kinds given is refused", kind: civoClusterKind,
			doc: object{}, err: "no kinds given"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msg, err := message(tt.kinds, tt.kind, tt.doc)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			js, err := protojson.MarshalOptions{Multiline: false}.Marshal(msg)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.ReplaceAll(string(js), " ", ""); !strings.Contains(got, tt.want) {
				t.Errorf("got %s, want %s in it", got, tt.want)
			}
		})
	}
}
