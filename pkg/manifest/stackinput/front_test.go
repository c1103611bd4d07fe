package stackinput_test

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/manifest/stackinput"
)

func TestEveryYAMLSyntaxErrorNamesItsLineAndColumnAndATabGetsAHint(t *testing.T) {
	head := "apiVersion: digitalocean.clusterplane.dev/v1\nkind: DigitalOceanKubernetesCluster\n"
	tests := []struct{ name, text, at, hint string }{
		{"a tab indenting a key", head + "metadata:\n\tname: x\n", "test.yaml:4:1: not valid YAML", "tabs are not allowed for indentation; use spaces"},
		{"a tab after spaces", head + "metadata:\n  name: x\n  \tnamespace: y\n", "test.yaml:5:3: not valid YAML", "tabs are not allowed for indentation; use spaces"},
		{"an unclosed quote", head + "metadata:\n  name: \"x\nspec: {}\n", "test.yaml:4:9: not valid YAML", "a quoted value is not closed"},
		{"an unclosed quote on the first line", "apiVersion: 'digitalocean\nkind: x\n", "test.yaml:1:13: not valid YAML", "a quoted value is not closed"},
		{"a key indented too deep", head + "metadata:\n  name: x\n   namespace: y\n", "test.yaml:5:4: not valid YAML", "indentation"},
		{"a key indented too little", head + "metadata:\n  name: x\n  labels:\n    a: b\n   c: d\n", "test.yaml:7:4: not valid YAML", "indentation"},
		{"an unclosed flow list", head + "spec:\n  tags: [a, b\n  region: fra1\n", "test.yaml:4:", "did not find expected ',' or ']' (a [list]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.text)
			if err == nil || !strings.HasPrefix(err.Error(), tt.at) || !strings.Contains(err.Error(), tt.hint) {
				t.Errorf("error %v\nwant it to start %q and hint %q", err, tt.at, tt.hint)
			}
		})
	}
}

func TestAKeyInAnotherCaseIsReportedAsTheUserWroteIt(t *testing.T) {
	text := strings.Replace(manifest("dev-fra1"), "apiVersion:", "apiversion:", 1)
	_, err := parse(text)
	problems := stackinput.Problems(err)
	if len(problems) != 1 {
		t.Fatalf("want one problem, got %v", err)
	}
	if got, want := problems[0].String(), "test.yaml:1:1: apiversion: unknown field (field names are case-sensitive: write apiVersion)"; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

func TestAFieldInTheWrongBlockNamesTheBlockItBelongsTo(t *testing.T) {
	tests := []struct{ name, text, want string }{
		{"size under spec", strings.Replace(manifest("dev-fra1"), "  defaultNodePool:\n    size: s-2vcpu-4gb\n", "  size: s-2vcpu-4gb\n  defaultNodePool:\n", 1),
			"spec.size: unknown field (size belongs to spec.defaultNodePool)"},
		{"clusterName under metadata", strings.Replace(manifest("dev-fra1"), "  name: dev-fra1\n", "  name: dev-fra1\n  clusterName: x\n", 1),
			"metadata.clusterName: unknown field (clusterName belongs to spec)"},
		{"kind under spec", manifest("dev-fra1") + "  kind: x\n", "spec.kind: unknown field (kind belongs to the top of the file)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parse(tt.text)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %v\ndoes not say %q", err, tt.want)
			}
		})
	}
}

func TestDocumentsSplitsAFileAndKeepsEveryLineWhereItWas(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"one document", "a: 1\n", []string{"a: 1\n"}},
		{"a leading marker", "---\na: 1\n", []string{"   \na: 1\n"}},
		{"two documents", "a: 1\n---\nb: 2\n", []string{"a: 1\n\n\n", "\n   \nb: 2\n"}},
		{"a trailing marker and comments", "# c\na: 1\n--- # two\nb: 2\n---\n# none\n", []string{"# c\na: 1\n\n\n\n\n", "\n\n    # two\nb: 2\n\n\n"}},
		{"an end marker", "a: 1\n...\n---\nb: 2\n", []string{"a: 1\n\n\n\n", "\n\n   \nb: 2\n"}},
		{"a marker in a block scalar is indented", "a: |\n  ---\n  x\n", []string{"a: |\n  ---\n  x\n"}},
		{"nothing", "# only\n", []string{"# only\n"}},
		{"markers and comments only, one empty document", "---\n# c\n---\n", []string{"\n\n\n"}},
		{"too many documents", strings.Repeat("a: 1\n---\n", stackinput.MaxDocuments), []string{strings.Repeat("a: 1\n---\n", stackinput.MaxDocuments)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range stackinput.Documents([]byte(tt.text)) {
				got = append(got, string(d))
			}
			if strings.Join(got, "|") != strings.Join(tt.want, "|") {
				t.Errorf("Documents(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
		})
	}
}
