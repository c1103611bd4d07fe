package autostack

import (
	"bytes"
	"strings"
	"testing"
)

const upOutputs = `Outputs:
    cluster_id             : "5d37b7a7"
    clusterplane_generation: "d580c99924de"
    clusterplane_manifest  : (json) {
        apiVersion: "digitalocean.clusterplane.dev/v1"
        metadata  : {
            name: "dev-fra1"
        }
        spec      : {
            region           : "fra1"
        }
    }

    default_node_pool_id   : "0fefe6b0"

Resources:
`

// previewOutputs are a preview's outputs for a tag change, as the engine prints them.
const previewOutputs = `Outputs:
  ~ clusterplane_generation: "fc8fbda44972" => "d54933889b2e"
  ~ clusterplane_manifest  : (json) {
        apiVersion: "digitalocean.clusterplane.dev/v1"
        metadata  : {
            name: "dev-fra1"
        }
      ~ spec      : {
            region           : "fra1"
          + tags             : [
          +     [0]: "team-a"
            ]
        }
    }

Resources:
    ~ 1 to update
`

const previewFolded = `Outputs:
  ~ clusterplane_generation: "fc8fbda44972" => "d54933889b2e"
  ~ clusterplane_manifest  : (json) {…} (the stack's manifest, folded)
Resources:
    ~ 1 to update
`

func TestTheRecordedManifestIsFoldedToOneLineAndNothingElseIsLost(t *testing.T) {
	folded := `Outputs:
    cluster_id             : "5d37b7a7"
    clusterplane_generation: "d580c99924de"
    clusterplane_manifest  : (json) {…} (the stack's manifest, folded)
    default_node_pool_id   : "0fefe6b0"

Resources:
`
	unended := "Outputs:\n    clusterplane_manifest  : (json) {\n        apiVersion: \"v1\"\n"
	lessIndented := "    clusterplane_manifest  : (json) {\n        apiVersion: \"v1\"\n  Resources:\n"
	tests := []struct {
		name string
		// writes are the engine's writes, whole lines each, as the redacting writer sends them.
		writes []string
		want   string
	}{
		{"the outputs of an up, in one write", []string{upOutputs}, folded},
		{"the outputs of an up, a line a write", strings.SplitAfter(upOutputs, "\n"), folded},
		{"a block the run ends inside is written as it came", []string{unended}, unended},
		{"a block that ends without its brace is written as it came", []string{lessIndented}, lessIndented},
		{"the changed manifest of a preview", []string{previewOutputs}, previewFolded},
		{"a manifest field of another name stays", []string{"    manifest: (json) {\n    }\n"}, "    manifest: (json) {\n    }\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			f := foldManifest(&out)
			for _, w := range tt.writes {
				if n, err := f.Write([]byte(w)); err != nil || n != len(w) {
					t.Fatalf("Write = %d, %v", n, err)
				}
			}
			if err := f.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != tt.want {
				t.Errorf("wrote:\n%s\nwant:\n%s", out.String(), tt.want)
			}
		})
	}
}

func TestTheEnginesAdviceToRunPulumiStackRmIsSaidAsClusterplaneDestroyRemove(t *testing.T) {
	tests := []struct{ in, want string }{
		{"If you want to remove the stack completely, run `pulumi stack rm organization/digitaloceankubernetescluster/dev-fra1`.\n",
			"`clusterplane destroy --remove` removes the stack too, with its history.\n"},
		{"The resources in the stack have been deleted, but the history and configuration associated with the stack are still maintained. \n",
			"The resources in the stack have been deleted, but the history and configuration associated with the stack are still maintained. \n"},
		{"Resources:\n", "Resources:\n"},
	}
	for _, tt := range tests {
		var out bytes.Buffer
		s := &stackOf{}
		p := s.progress(&out)
		if _, err := p.Write([]byte(tt.in)); err != nil {
			t.Fatal(err)
		}
		if err := p.Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != tt.want {
			t.Errorf("%q is said as %q, want %q", tt.in, out.String(), tt.want)
		}
	}
}
