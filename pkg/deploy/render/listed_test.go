package render

import (
	"bytes"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy"
)

// The text's rows and the pull request comment's table list the same stacks: a reviewer who reads
// one and a person who reads the other must not be told about different stacks.
func TestTheTextAndTheMarkdownListTheSameStacks(t *testing.T) {
	stacks := []struct {
		name   string
		report deploy.StackReport
		listed bool
	}{
		{"a stack that changes nothing is not listed",
			deploy.StackReport{Outcome: deploy.Done, Changes: map[string]int{"same": 2}}, false},
		{"a stack only refreshed is not listed",
			deploy.StackReport{Outcome: deploy.Done, Changes: map[string]int{"same": 1, "refresh": 1}}, false},
		{"a stack left unchanged by the fleet scan is not listed",
			deploy.StackReport{Outcome: deploy.Done, NotRun: true, Reason: deploy.Unchanged}, false},
		{"a stack with an update is listed",
			deploy.StackReport{Outcome: deploy.Done, Changes: map[string]int{"update": 1}}, true},
		{"a stack a policy warns about is listed",
			deploy.StackReport{Outcome: deploy.Done, Changes: map[string]int{"same": 1},
				Policy: []policy.Result{{Rule: "warn-size", Level: policy.Warn, Message: "big"}}}, true},
		{"a failed stack is listed",
			deploy.StackReport{Outcome: deploy.Failed, Error: "boom"}, true},
	}
	for _, command := range []string{"preview", "up"} {
		var r deploy.Report
		r.Command = command
		for i, s := range stacks {
			s.report.File = "f.yaml"
			s.report.Stack = "stack-" + string(rune('a'+i)) + "-x"
			r.Stacks = append(r.Stacks, s.report)
		}
		var text, md bytes.Buffer
		Fleet(&text, r, FleetOptions{})
		if err := Markdown(&md, r); err != nil {
			t.Fatal(err)
		}
		for i, s := range stacks {
			t.Run(command+": "+s.name, func(t *testing.T) {
				stack := r.Stacks[i].Stack
				inText := strings.Contains(text.String(), stack)
				inMarkdown := strings.Contains(md.String(), "`"+stack+"`")
				if inText != s.listed || inMarkdown != s.listed {
					t.Errorf("listed in the text: %v, in the Markdown: %v; want both %v\n--- text\n%s\n--- markdown\n%s",
						inText, inMarkdown, s.listed, text.String(), md.String())
				}
			})
		}
	}
}
