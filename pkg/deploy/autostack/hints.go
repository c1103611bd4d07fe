package autostack

import (
	"io"
	"regexp"
)

// stackRmHint is the engine's advice after a destroy, "If you want to remove the stack
// completely, run `pulumi stack rm organization/<kind>/<name>-<env>`." (the Pulumi CLI's destroy
// command, v3.259.0). A clusterplane user has no Pulumi project to run that from, and removes the
// stack with `clusterplane destroy --remove`: the engine's words are said in clusterplane's.
var stackRmHint = regexp.MustCompile("If you want to remove the stack completely, run `pulumi stack rm [^`]*`\\.?")

// engineHints is a line of the engine's progress with its advice said as a clusterplane user
// follows it.
func engineHints(line string) string {
	return stackRmHint.ReplaceAllString(line, "`clusterplane destroy --remove` removes the stack too, with its history.")
}

// hints is the stage of the engine's progress that says the engine's advice in clusterplane's
// words. It is given whole lines (the redacting writer before it passes only those).
type hints struct{ w io.Writer }

func (h hints) Write(data []byte) (int, error) {
	if _, err := io.WriteString(h.w, engineHints(string(data))); err != nil {
		return 0, err
	}
	return len(data), nil
}
