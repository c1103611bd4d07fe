package cli

import (
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/replace"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/spf13/cobra"
)

// AllowReplaceFlag adds --allow-replace to cmd and returns what it allows (package replace): the
// flag alone, the resources of every manifest; --allow-replace=KIND/NAME, repeated, those of the
// manifests named. A KIND that names none of l's kinds is a usage error when the flag is read, not
// a flag that quietly allows nothing.
func AllowReplaceFlag(cmd *cobra.Command, l kinds.List) *replace.Allowed {
	v := &allowReplace{kinds: l, allowed: &replace.Allowed{}}
	cmd.Flags().Var(v, replace.Flag, "let the run replace resources: of every manifest (the flag alone) or of one "+
		"(--allow-replace=KIND/NAME, its kind and metadata.name; repeat for more). Without it a change that "+
		"replaces is refused (exit 3), with --yes or a yes at the terminal alike")
	cmd.Flags().Lookup(replace.Flag).NoOptDefVal = replace.All
	return v.allowed
}

// allowReplace is --allow-replace's value: each value given so far, and what they allow.
type allowReplace struct {
	values  []string
	kinds   kinds.List
	allowed *replace.Allowed
}

func (v *allowReplace) String() string { return strings.Join(v.values, ",") }
func (v *allowReplace) Type() string   { return "KIND/NAME" }

func (v *allowReplace) Set(value string) error {
	var known []string
	for _, k := range v.kinds {
		known = append(known, k.Name+" ("+k.Short+")")
	}
	a, err := replace.Parse(append(v.values, value), v.manifestKind, strings.Join(known, ", "))
	if err != nil {
		return err
	}
	v.values, *v.allowed = append(v.values, value), a
	return nil
}

// manifestKind is the manifest kind that kind names: a manifest kind or program name, as
// kinds.List.ByName matches them, or the short name status --kind and its KIND column use.
func (v *allowReplace) manifestKind(kind string) (string, bool) {
	if k, ok := v.kinds.ByName(kind); ok {
		return k.Name, true
	}
	for _, k := range v.kinds {
		if strings.EqualFold(k.Short, kind) {
			return k.Name, true
		}
	}
	return "", false
}
