package examples_test

import (
	"os"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
)

// FuzzParseThenPlan feeds any text to every kind's loader and plans what one accepts: an
// accepted input must plan without error or panic, and no plan or error shows the token.
// Promise: fuzz-targets-hold-their-promises
func FuzzParseThenPlan(f *testing.F) {
	const token = "tokSENTINEL902plan" // digits, as real tokens have: a key of letters alone is an identifier
	for _, path := range exampleFiles(f) {
		data, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
		f.Add([]byte(strings.Replace(string(data), "providerConfig: {}", "providerConfig:\n  apiToken: "+token, 1)))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		path := dir + "/input.yaml"
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
		for _, k := range kinds {
			_, body, err := k.load(path)
			if err != nil {
				if strings.Contains(err.Error(), token) {
					t.Fatalf("%s: the error shows the token: %v", k.name, err)
				}
				continue
			}
			p, err := mockrun.Run(body, mockrun.Options{Preview: true})
			if err != nil {
				t.Fatalf("%s: an accepted input does not plan: %v", k.name, err)
			}
			var rendered strings.Builder
			if err := mockrun.WriteJSON(&rendered, p); err != nil {
				t.Fatal(err)
			}
			if strings.Contains(rendered.String(), token) {
				t.Fatalf("%s: the plan shows the token", k.name)
			}
		}
	})
}
