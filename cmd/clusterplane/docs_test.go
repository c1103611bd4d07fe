package main

import (
	"encoding/json"
	"testing"
)

func TestTheDocumentingCommandsPrintJSONThatSaysWhatTheTextSays(t *testing.T) {
	tests := []struct {
		args []string
		// check reads the decoded JSON and says what is wrong with it, "" when nothing is.
		into  func() any
		check func(v any) string
	}{
		{[]string{"kinds", "-o", "json"}, func() any { return &[]kindRow{} }, func(v any) string {
			rows := *v.(*[]kindRow)
			if len(rows) != len(programs) || rows[0].APIVersion == "" || rows[0].Schema == "" {
				return "want a row with apiVersion and schema per kind"
			}
			return ""
		}},
		{[]string{"regions", "digitalocean", "-o", "json"}, func() any { return &[]regionRow{} }, func(v any) string {
			for _, r := range *v.(*[]regionRow) {
				if r.Region == "fra1" && r.Where != "" {
					return ""
				}
			}
			return "want fra1 with where it is"
		}},
		{[]string{"explain", "DigitalOceanKubernetesCluster.spec.kubernetesVersion", "-o", "json"},
			func() any { return &map[string]any{} }, func(v any) string {
				m := *v.(*map[string]any)
				if m["field"] != "spec.kubernetesVersion" || m["type"] != "string" || m["rules"] == nil || m["default"] == nil {
					return "want the field, its type, rules and default"
				}
				return ""
			}},
	}
	for _, tt := range tests {
		t.Run(tt.args[0], func(t *testing.T) {
			r := run(t, "", tt.args...)
			if r.code != 0 {
				t.Fatalf("%v = %d: %s", tt.args, r.code, r.stderr)
			}
			v := tt.into()
			if err := json.Unmarshal([]byte(r.stdout), v); err != nil {
				t.Fatalf("%v printed no JSON: %v\n%s", tt.args, err, r.stdout)
			}
			if why := tt.check(v); why != "" {
				t.Errorf("%v: %s:\n%s", tt.args, why, r.stdout)
			}
		})
	}
}
