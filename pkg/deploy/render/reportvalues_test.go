package render

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

func TestEachDifferenceHoldsTheCloudsTheManifestsAndTheRecordedValueAndNoSecret(t *testing.T) {
	const nodeCount = "spec.defaultNodePool.nodeCount"
	// grown is a preview of a cluster whose manifest asks 3 nodes where its last up applied 2.
	grown := func() outcome.Outcome { return previewFleet(t, 1, []int{0})[0] }
	// unrecorded is a cluster outcome that ran no engine: the stack's record is not known.
	unrecorded := func() outcome.Outcome { return driftFleet(t, 1, nil)[0] }
	with := func(o outcome.Outcome, drift ...outcome.FieldDrift) outcome.Outcome {
		o.Drift = drift
		return o
	}
	tests := []struct {
		name    string
		command operation.Name
		o       outcome.Outcome
		want    []Difference
	}{
		{"a preview lists the manifest's change with what the last up applied", operation.Preview, grown(),
			[]Difference{{Field: nodeCount, Manifest: int32(3), Recorded: int32(2)}}},
		{"drift reads a field the manifest did not change as recorded the way the manifest has it", operation.Drift,
			with(grown(), outcome.FieldDrift{Field: "spec.tags", Live: []any{"edited"}, Manifest: []any{}}),
			[]Difference{{Field: "spec.tags", Cloud: []any{"edited"}, Manifest: []any{}, Recorded: []any{}}}},
		{"drift reads a field the manifest changed as recorded the change's old value", operation.Drift,
			with(grown(), outcome.FieldDrift{Field: nodeCount, Live: 4.0, Manifest: 3.0}),
			[]Difference{{Field: nodeCount, Cloud: 4.0, Manifest: 3.0, Recorded: int32(2)}}},
		{"the operation's own recorded value is kept", operation.Drift,
			with(grown(), outcome.FieldDrift{Field: nodeCount, Live: 4.0, Manifest: 3.0, Recorded: 1.0}),
			[]Difference{{Field: nodeCount, Cloud: 4.0, Manifest: 3.0, Recorded: 1.0}}},
		{"a property several fields send, one of them changed, has no recorded value", operation.Drift,
			with(grown(), outcome.FieldDrift{Field: "spec.defaultNodePool or spec.tags", Live: 1.0, Manifest: 2.0}),
			[]Difference{{Field: "spec.defaultNodePool or spec.tags", Cloud: 1.0, Manifest: 2.0}}},
		{"a property no manifest field sends has no recorded value", operation.Drift,
			with(grown(), outcome.FieldDrift{Field: "digitalocean:index/kubernetesCluster:KubernetesCluster vpcUuid", Live: "a", Manifest: "b"}),
			[]Difference{{Field: "digitalocean:index/kubernetesCluster:KubernetesCluster vpcUuid", Cloud: "a", Manifest: "b"}}},
		{"nothing recorded leaves the recorded value null", operation.Drift,
			with(unrecorded(), outcome.FieldDrift{Field: "spec.tags", Live: []any{"edited"}, Manifest: []any{}}),
			[]Difference{{Field: "spec.tags", Cloud: []any{"edited"}, Manifest: []any{}}}},
		{"a field the schema marks secret shows no value", operation.Drift,
			with(unrecorded(), outcome.FieldDrift{Field: "providerConfig.apiToken", Live: "dop_v1_cloud", Manifest: "dop_v1_manifest"}),
			[]Difference{{Field: "providerConfig.apiToken", Cloud: "[secret]", Manifest: "[secret]"}}},
		{"a value the engine marks secret hides the other side's too", operation.Drift,
			with(unrecorded(), outcome.FieldDrift{Field: "spec.tags", Live: []any{"[secret]"}, Manifest: []any{"plain"}}),
			[]Difference{{Field: "spec.tags", Cloud: "[secret]", Manifest: "[secret]"}}},
		{"an adoption's disagreement has nothing recorded", operation.Adopt,
			func() outcome.Outcome {
				o := unrecorded()
				o.Disagreements = []outcome.Disagreement{{Field: nodeCount, Live: 3.0, Manifest: 2.0}}
				return o
			}(),
			[]Difference{{Field: nodeCount, Cloud: 3.0, Manifest: 2.0}}},
		{"a field listed twice is listed once", operation.Up,
			func() outcome.Outcome {
				o := grown()
				o.PutBack = []outcome.FieldDrift{{Field: nodeCount, Live: 5.0, Manifest: 3.0}}
				return o
			}(),
			[]Difference{{Field: nodeCount, Manifest: int32(3), Recorded: int32(2)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := json.Marshal(Differences(tt.command, tt.o))
			want, _ := json.Marshal(tt.want)
			if string(got) != string(want) {
				t.Errorf("Differences = %s, want %s", got, want)
			}
		})
	}
}

// A value the cloud holds may carry a token the run knows (a tag): the file holds it redacted.
func TestAReportFileRedactsTheDifferencesValues(t *testing.T) {
	outcomes := driftFleet(t, 1, []int{0})
	outcomes[0].Drift = []outcome.FieldDrift{{Field: "spec.tags", Live: []any{"token=tok3n"}, Manifest: map[string]any{"tok3n": "tok3n"}}}
	redact := func(s string) string { return strings.ReplaceAll(s, "tok3n", "[redacted]") }
	for _, name := range []string{"fleet.json", "fleet.csv"} {
		data, err := ReportFile(name, Report(operation.Drift, outcomes, clouds.Prices), outcomes, clouds.Prices, redact)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "tok3n") || !strings.Contains(string(data), "token=[redacted]") {
			t.Errorf("%s holds the token, or not its redacted value:\n%s", name, data)
		}
	}
}
