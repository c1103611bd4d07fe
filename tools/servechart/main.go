// Command servechart renders the serve chart (deploy/chart) as `helm template` does, with Helm's
// own engine, for those without the helm binary: the e2e test applies what it prints to a real
// API server, and starts serve with its Deployment's environment and arguments. Its tests render
// the chart's values matrix (deploy/chart/ci) and check what it would install.
//
//	go run ./tools/servechart -chart deploy/chart -f deploy/chart/ci/split-values.yaml
package main

import (
	"flag"
	"fmt"
	"os"
)

// files is a repeated flag.
type files []string

func (f *files) String() string     { return fmt.Sprint(*f) }
func (f *files) Set(v string) error { *f = append(*f, v); return nil }

func main() {
	dir := flag.String("chart", "deploy/chart", "the chart's folder")
	name := flag.String("name", "clusterplane", "the release's name")
	namespace := flag.String("namespace", "clusterplane", "the release's namespace")
	var values files
	flag.Var(&values, "f", "a values file over the chart's defaults; repeat it, a later one's keys over an earlier's")
	flag.Parse()
	out, err := render(*dir, *name, *namespace, values...)
	if err != nil {
		fmt.Fprintln(os.Stderr, "servechart:", err)
		os.Exit(1)
	}
	fmt.Print(out)
}
