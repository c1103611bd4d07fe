package render

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
)

// UpgradeText prints the fleet's order, then each cluster's path, what uses removed APIs, the
// cloud's checks, what blocks and what was not checked.
func UpgradeText(w io.Writer, plans []upgrade.Assessment) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ORDER\tFILE\tCLUSTER\tENV\tRUNNING\tTARGET\tSTEPS\tRESULT")
	for i, p := range plans {
		result := "ok"
		switch {
		case p.Blocked():
			result = "blocked"
		case p.Running != "" && len(p.Steps) == 0:
			result = "up to date"
		case p.Running == "":
			result = "not running"
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%d\t%s\n", i+1, p.File, p.Cluster, envOf(p), dash(p.Running), p.Target, len(p.Steps), result)
	}
	_ = tw.Flush()
	for _, p := range plans {
		fmt.Fprintf(w, "\n%s (%s, %s):\n", p.Cluster, envOf(p), p.File)
		for i, s := range p.Steps {
			fmt.Fprintf(w, "  step %d: %s -> %s%s\n", i+1, s.From, s.To, removes(s))
		}
		for _, o := range p.Objects {
			fmt.Fprintf(w, "  removed API in use: %s %s: %s, removed in %s%s (from %s)\n", o.Kind, o.Ref(), o.APIVersion, o.RemovedIn, useText(o.Use), o.Source)
		}
		for _, d := range p.Lint {
			fmt.Fprintf(w, "  clusterlint %s %s: %s %s\n", d.Severity, d.Check, d.Object, d.Message)
		}
		for _, b := range p.Blockers {
			fmt.Fprintf(w, "  blocked: %s\n", b)
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "  note: %s\n", n)
		}
		if len(p.Steps) == 0 && len(p.Blockers) == 0 && len(p.Notes) == 0 {
			fmt.Fprintln(w, "  up to date")
		}
	}
	fmt.Fprintf(w, "\nRemoved APIs: %s\n", upgrade.RemovedSource)
}

// UpgradeMarkdown is the plan as a Markdown comment: the fleet's table, then the details.
func UpgradeMarkdown(w io.Writer, plans []upgrade.Assessment) {
	fmt.Fprintln(w, "### clusterplane upgrade plan")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| order | cluster | env | running | target | path | blocked |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for i, p := range plans {
		var path []string
		for _, s := range p.Steps {
			path = append(path, "`"+s.To+"`")
		}
		blocked := "no"
		if p.Blocked() {
			blocked = "**yes**"
		}
		fmt.Fprintf(w, "| %d | `%s` (%s) | %s | %s | `%s` | %s | %s |\n", i+1, p.Cluster, md(p.File), md(envOf(p)), md(dash(p.Running)),
			p.Target, strings.Join(path, " → "), blocked)
	}
	for _, p := range plans {
		if len(p.Objects)+len(p.Blockers)+len(p.Notes)+len(p.Lint) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n#### `%s` (%s)\n\n", p.Cluster, md(envOf(p)))
		for _, o := range p.Objects {
			fmt.Fprintf(w, "- removed API in use: %s `%s`: `%s`, removed in %s%s (from %s)\n", o.Kind, o.Ref(), o.APIVersion, o.RemovedIn, useText(o.Use), o.Source)
		}
		for _, d := range p.Lint {
			fmt.Fprintf(w, "- clusterlint %s `%s`: %s %s\n", d.Severity, d.Check, md(d.Object), md(d.Message))
		}
		for _, b := range p.Blockers {
			fmt.Fprintf(w, "- **blocked**: %s\n", md(b))
		}
		for _, n := range p.Notes {
			fmt.Fprintf(w, "- note: %s\n", md(n))
		}
	}
	fmt.Fprintf(w, "\nRemoved APIs from the [Kubernetes deprecated API migration guide](%s).\n", upgrade.RemovedSource)
}

// md escapes what would break a Markdown table cell.
func md(s string) string { return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s) }

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

func useText(v string) string {
	if v == "" {
		return ", no successor"
	}
	return ", use " + v
}

// removes says which APIs a step's release stops serving.
func removes(s upgrade.Step) string {
	if len(s.Removes) == 0 {
		return ""
	}
	var parts []string
	for _, r := range s.Removes {
		parts = append(parts, r.APIVersion()+" "+r.Kind)
	}
	return " (removes " + strings.Join(parts, ", ") + ")"
}

func envOf(p upgrade.Assessment) string {
	if p.Env == "" {
		return "-"
	}
	return p.Env
}
