package componentprovider_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"

	"github.com/clusterplane/clusterplane/pkg/pulumi/componentprovider"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
)

// FuzzReadInputs feeds every kind arbitrary inputs, as JSON objects: reading them must end in
// inputs or an InputError, never a panic, and an error must not repeat a string value it was given
// (a token could be one).
// Promise: fuzz-targets-hold-their-promises
func FuzzReadInputs(f *testing.F) {
	for _, seed := range []string{
		`{}`,
		`{"clusterName":"a","region":"fra1","nodeCount":-1,"labels":{"a":1},"taints":[{"effect":"x"}]}`,
		`{"cluster":{"value":"c"},"size":"s","nodePoolName":"p","metadata":{"name":"Bad","labels":[]}}`,
		`{"providerConfig":{"apiToken":7,"apiUrl":"SECRET_VALUE"},"defaultNodePool":{"nodeCount":1.5}}`,
		`{"nope":null,"tags":["k8s",3],"maintenanceWindow":{"day":"sunday","startTime":"25:00"}}`,
	} {
		f.Add(seed)
	}
	kinds := registry.Kinds().Components()
	f.Fuzz(func(t *testing.T, text string) {
		var raw map[string]any
		if json.Unmarshal([]byte(text), &raw) != nil {
			return
		}
		props := resource.NewPropertyMapFromMap(raw)
		for _, k := range kinds {
			_, err := componentprovider.ReadInputs(k.Token, "fuzz", k.NewStackInput(), props, nil)
			if err == nil {
				continue
			}
			if _, ok := err.(*componentprovider.InputError); !ok {
				t.Fatalf("%s: error of type %T: %v", k.Token, err, err)
			}
			for _, s := range strings.Split(text, `"`) {
				if strings.HasPrefix(s, "SECRET") && strings.Contains(err.Error(), s) {
					t.Fatalf("%s: error repeats the value %q: %v", k.Token, s, err)
				}
			}
		}
	})
}
