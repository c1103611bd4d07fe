package statefile

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
)

// stateFile is a state file as the CLI writes it, on one line: a stack with its one resource.
const stateFile = `{"version":3,"checkpoint":{"stack":"organization/p/s","latest":{"manifest":{"time":"2026-11-30T08:00:00Z"},` +
	`"resources":[{"urn":"urn:pulumi:s::p::pulumi:pulumi:Stack::p-s","type":"pulumi:pulumi:Stack","outputs":{"generation":"g1"}}]}}}`

func TestACheckpointReadInOnePassReadsAsJSONUnmarshalDoes(t *testing.T) {
	var indented bytes.Buffer
	if err := json.Indent(&indented, []byte(stateFile), "", "    "); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		data string
		// onePass tells that OnePass reads it itself, rather than leaving it to the decodes.
		onePass bool
	}{
		{"a checkpoint as the CLI writes it, indented", indented.String(), true},
		{"a checkpoint on one line", stateFile, true},
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
		{"a checkpoint cut short", stateFile[:len(stateFile)/2], false},
		{"no checkpoint", `{"version":3}`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := OnePass([]byte(tt.data))
			if ok != tt.onePass {
				t.Fatalf("read in one pass: %v, want %v", ok, tt.onePass)
			}
			if !ok {
				return
			}
			latest, version, err := Latest([]byte(tt.data))
			if err != nil || version != 3 {
				t.Fatalf("json.Unmarshal does not read what one pass read: version %d, %v", version, err)
			}
			if !bytes.Equal(c.Latest, latest) {
				t.Errorf("latest as written:\n%s\nwant\n%s", c.Latest, latest)
			}
			var want apitype.DeploymentV3
			if string(latest) != "null" && len(latest) > 0 {
				if err := json.Unmarshal(latest, &want); err != nil {
					t.Fatalf("json.Unmarshal does not parse what one pass parsed: %v", err)
				}
			}
			if !reflect.DeepEqual(c.Deployment, want) {
				t.Errorf("parsed:\n%+v\nwant\n%+v", c.Deployment, want)
			}
		})
	}
}
