package autostack

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
)

func TestACheckpointReadInOnePassReadsAsJSONUnmarshalDoes(t *testing.T) {
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(checkpoint), "", "    "); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
		// onePass tells that checkpointOf reads it itself, rather than leaving it to the decodes.
		onePass bool
	}{
		{"a checkpoint as the CLI writes it, indented", indented.String(), true},
		{"a checkpoint on one line", checkpoint, true},
		{"the checkpoint before the version", `{"checkpoint":{"latest":{"resources":[]},"stack":"s"},"version":3}`, true},
		{"a checkpoint with its config", `{"version":3,"checkpoint":{"stack":"s","config":{"p:a":"b"},"latest":{"resources":[]}}}`, true},
		{"a latest of null", `{"version":3,"checkpoint":{"stack":"s","latest":null}}`, true},
		{"no latest", `{"version":3,"checkpoint":{"stack":"s"}}`, true},
		{"blanks around everything", " {\n\"version\" : 3 ,\"checkpoint\" :{ \"latest\"\t:\r\n {\"resources\":[]} } }\n", true},
		{"features", `{"version":3,"features":["x"],"checkpoint":{"latest":{}}}`, false},
		{"a key in other case", `{"Version":3,"checkpoint":{"latest":{}}}`, false},
		{"latest in other case", `{"version":3,"checkpoint":{"Latest":{"resources":[]}}}`, false},
		{"the version twice", `{"version":2,"version":3,"checkpoint":{"latest":{}}}`, false},
		{"latest twice", `{"version":3,"checkpoint":{"latest":{"resources":[]},"latest":{}}}`, false},
		{"another version", `{"version":4,"checkpoint":{"latest":{}}}`, false},
		{"a version as a string", `{"version":"3","checkpoint":{"latest":{}}}`, false},
		{"a checkpoint of null", `{"version":3,"checkpoint":null}`, false},
		{"a latest that is no deployment", `{"version":3,"checkpoint":{"latest":[1]}}`, false},
		{"data after the checkpoint", `{"version":3,"checkpoint":{"latest":{}}} {}`, false},
		{"a checkpoint cut short", checkpoint[:len(checkpoint)/2], false},
		{"no checkpoint", `{"version":3}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := checkpointOf([]byte(tt.data))
			if ok != tt.onePass {
				t.Fatalf("read in one pass: %v, want %v", ok, tt.onePass)
			}
			if !ok {
				return
			}
			want, err := checkpointRecords([]byte(tt.data), "p", "s")
			if err != nil {
				t.Fatalf("json.Unmarshal does not read what one pass read: %v", err)
			}
			if !bytes.Equal(c.latest, want.State.Deployment) {
				t.Errorf("latest as written:\n%s\nwant\n%s", c.latest, want.State.Deployment)
			}
			st, err := stackstate.StateOf(want.State)
			if err != nil {
				t.Fatalf("json.Unmarshal does not parse what one pass parsed: %v", err)
			}
			if !reflect.DeepEqual(c.deployment, st.Deployment) {
				t.Errorf("parsed:\n%+v\nwant\n%+v", c.deployment, st.Deployment)
			}
		})
	}
}
