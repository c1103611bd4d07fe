package main

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/spf13/cobra"
)

// flagsMade is what a deploy command's flags made of a command line, the same for every command.
type flagsMade struct {
	Files                                   []string
	Stack, Output, SecretsProvider          string
	Parallel                                int
	Timeout                                 time.Duration
	OneManifest                             bool
	Policy                                  []string
	Yes, Remove, Exact, Drift, ClearPending bool
	Plan, SavePlan, ID                      string
	Imports                                 []string
}

// shared is what every deploy command's options hold.
func shared(o *deployOptions) flagsMade {
	m := flagsMade{Files: orNil(o.files), Stack: o.stack, Output: o.output.String(), SecretsProvider: o.secretsProvider,
		Parallel: o.parallel, Timeout: o.timeout, OneManifest: o.oneManifest}
	if o.policyOptions.file != nil {
		m.Policy = orNil(*o.policyOptions.file)
	}
	return m
}

// orNil is list, nil when empty: no flag and a flag given nothing read alike.
func orNil(list []string) []string {
	if len(list) == 0 {
		return nil
	}
	return list
}

func TestEachDeployCommandsFlagsMakeItsOptionsWithoutRunningAnything(t *testing.T) {
	t.Setenv("CLUSTERPLANE_POLICY", "")
	// Each builds the command with a runF that records its options, and runs nothing.
	preview := func(f *factory, got *flagsMade) *cobra.Command {
		return newCmdPreview(f, func(o *previewOptions) error {
			*got = shared(&o.deployOptions)
			got.SavePlan = o.savePlan
			return nil
		})
	}
	up := func(f *factory, got *flagsMade) *cobra.Command {
		return newCmdUp(f, func(o *upOptions) error {
			*got = shared(&o.deployOptions)
			got.Yes, got.Plan = o.yes, o.plan
			return nil
		})
	}
	refresh := func(f *factory, got *flagsMade) *cobra.Command {
		return newCmdRefresh(f, func(o *refreshOptions) error {
			*got = shared(&o.deployOptions)
			got.Imports, got.ClearPending = orNil(o.imports), o.clearPending
			return nil
		})
	}
	drift := func(f *factory, got *flagsMade) *cobra.Command {
		return newCmdDrift(f, func(o *driftOptions) error { *got = shared(&o.deployOptions); return nil })
	}
	status := func(f *factory, got *flagsMade) *cobra.Command {
		return newCmdStatus(f, func(o *statusOptions) error {
			*got = shared(&o.deployOptions)
			got.Drift = o.drift
			return nil
		})
	}
	destroy := func(f *factory, got *flagsMade) *cobra.Command {
		return newCmdDestroy(f, func(o *destroyOptions) error {
			*got = shared(&o.deployOptions)
			got.Yes, got.Remove = o.yes, o.remove
			return nil
		})
	}
	kubeconfig := func(f *factory, got *flagsMade) *cobra.Command {
		return newCmdKubeconfig(f, func(o *kubeconfigOptions) error { *got = shared(&o.deployOptions); return nil })
	}
	adopt := func(f *factory, got *flagsMade) *cobra.Command {
		return newCmdAdopt(f, func(o *adoptOptions) error {
			*got = shared(&o.deployOptions)
			got.ID, got.Exact = o.id, o.exact
			return nil
		})
	}
	for _, tc := range []struct {
		name string
		cmd  func(f *factory, got *flagsMade) *cobra.Command
		args string
		want flagsMade
	}{
		{"up --yes --parallel 2", up, "--yes --parallel 2 a.yaml",
			flagsMade{Files: []string{"a.yaml"}, Output: "text", Parallel: 2, Timeout: stackTimeout, Yes: true}},
		{"up --plan without files takes the plan's later", up, "--plan p.json",
			flagsMade{Output: "text", Parallel: 4, Timeout: stackTimeout, Plan: "p.json"}},
		{"up with a policy and a secrets provider", up, "--policy a.cel --policy b.cel --secrets-provider passphrase fleet",
			flagsMade{Files: []string{"fleet"}, Output: "text", Parallel: 4, Timeout: stackTimeout, Policy: []string{"a.cel", "b.cel"},
				SecretsProvider: "passphrase"}},
		{"preview --save-plan in markdown", preview, "--save-plan p.json -o markdown a.yaml b.yaml",
			flagsMade{Files: []string{"a.yaml", "b.yaml"}, Output: "markdown", Parallel: 4, Timeout: stackTimeout, SavePlan: "p.json"}},
		{"refresh of pending creates", refresh, "--import-pending-create id-1 --import-pending-create urn=id-2 --clear-pending-creates a.yaml",
			flagsMade{Files: []string{"a.yaml"}, Output: "text", Parallel: 4, Timeout: stackTimeout, Imports: []string{"id-1", "urn=id-2"},
				ClearPending: true}},
		{"drift in JSON", drift, "-o json fleet",
			flagsMade{Files: []string{"fleet"}, Output: "json", Parallel: 4, Timeout: stackTimeout}},
		{"status --drift of a stack", status, "--drift --stack team-a a.yaml",
			flagsMade{Files: []string{"a.yaml"}, Stack: "team-a", Output: "text", Parallel: 4, Timeout: stackTimeout, Drift: true}},
		{"destroy --yes --remove within five minutes a stack", destroy, "--yes --remove --stack-timeout 5m fleet",
			flagsMade{Files: []string{"fleet"}, Output: "text", Parallel: 4, Timeout: 5 * time.Minute, Yes: true, Remove: true}},
		{"kubeconfig acts on one manifest, one stack at a time", kubeconfig, "--stack team-a a.yaml",
			flagsMade{Files: []string{"a.yaml"}, Stack: "team-a", Output: "text", Parallel: 1, Timeout: stackTimeout, OneManifest: true}},
		{"adopt --id --exact", adopt, "--id 1234 --exact a.yaml",
			flagsMade{Files: []string{"a.yaml"}, Output: "text", Parallel: 4, Timeout: stackTimeout, ID: "1234", Exact: true}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			f := newFactory(registry.Kinds(), strings.NewReader(""), &stdout, &stderr)
			got := flagsMade{Parallel: -1}
			cmd := tc.cmd(f, &got)
			cmd.SetArgs(strings.Fields(tc.args))
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			if err := cmd.Execute(); err != nil {
				t.Fatalf("%s: %v", tc.args, err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s gave\n%+v, want\n%+v", tc.args, got, tc.want)
			}
			if stdout.Len()+stderr.Len() > 0 {
				t.Errorf("something ran: %s%s", stdout.String(), stderr.String())
			}
		})
	}
}

func TestTheDocumentingCommandsFlagsMakeTheirOptionsWithoutRunningAnything(t *testing.T) {
	for _, tc := range []struct {
		name string
		cmd  func(f *factory, got *string) *cobra.Command
		args string
		want string
	}{
		{"explain --recursive in JSON", func(f *factory, got *string) *cobra.Command {
			return newCmdExplain(f, func(o *explainOptions) error {
				*got = fmt.Sprintf("%s recursive=%t %s", o.path, o.recursive, o.output)
				return nil
			})
		}, "CivoKubernetesNodePool.spec --recursive -o json", "CivoKubernetesNodePool.spec recursive=true json"},
		{"schema --stack-input of a kind", func(f *factory, got *string) *cobra.Command {
			return newCmdSchema(f, func(o *schemaOptions) error {
				*got = fmt.Sprintf("%q stackInput=%t", o.kind, o.stackInput)
				return nil
			})
		}, "CivoKubernetesCluster --stack-input", `"CivoKubernetesCluster" stackInput=true`},
		{"schema without a kind lists them", func(f *factory, got *string) *cobra.Command {
			return newCmdSchema(f, func(o *schemaOptions) error {
				*got = fmt.Sprintf("%q stackInput=%t", o.kind, o.stackInput)
				return nil
			})
		}, "", `"" stackInput=false`},
		{"kinds in JSON", func(f *factory, got *string) *cobra.Command {
			return newCmdKinds(f, func(o *kindsOptions) error { *got = o.output.String(); return nil })
		}, "-o json", "json"},
		{"regions of a cloud", func(f *factory, got *string) *cobra.Command {
			return newCmdRegions(f, func(o *regionsOptions) error { *got = o.cloud + " " + o.output.String(); return nil })
		}, "civo", "civo text"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			f := newFactory(registry.Kinds(), strings.NewReader(""), &stdout, &stderr)
			got := "not run"
			cmd := tc.cmd(f, &got)
			cmd.SetArgs(strings.Fields(tc.args))
			cmd.SetOut(&stdout)
			cmd.SetErr(&stderr)
			if err := cmd.Execute(); err != nil {
				t.Fatalf("%s: %v", tc.args, err)
			}
			if got != tc.want {
				t.Errorf("%s gave %s, want %s", tc.args, got, tc.want)
			}
			if stdout.Len()+stderr.Len() > 0 {
				t.Errorf("something ran: %s%s", stdout.String(), stderr.String())
			}
		})
	}
}

func TestExportPKOsFlagsMakeItsOptionsWithoutRunningAnything(t *testing.T) {
	var stdout, stderr bytes.Buffer
	f := newFactory(registry.Kinds(), strings.NewReader(""), &stdout, &stderr)
	var got *exportPKOOptions
	cmd := newCmdExportPKO(f, func(o *exportPKOOptions) error { got = o; return nil })
	cmd.SetArgs(strings.Fields("--image ghcr.io/x/workspace:1 -n team --drift-check --stack team-a -d out a.yaml"))
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("runF was not called")
	}
	want := fmt.Sprintf("%q %q %q %q %t %q %q", []string{"a.yaml"}, "team-a", "ghcr.io/x/workspace:1", "team", true, "clusterplane", "out")
	if s := fmt.Sprintf("%q %q %q %q %t %q %q", got.files, got.stack, got.pko.Image, got.pko.Namespace, got.pko.DriftCheck,
		got.pko.ServiceAccount, got.dir); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
	if stdout.Len()+stderr.Len() > 0 {
		t.Errorf("something ran: %s%s", stdout.String(), stderr.String())
	}
}

func TestDiscoversFlagsMakeItsOptionsWithoutReadingTheCloud(t *testing.T) {
	var stdout, stderr bytes.Buffer
	f := newFactory(registry.Kinds(), strings.NewReader(""), &stdout, &stderr)
	var got *discoverOptions
	cmd := newCmdDiscover(f, func(o *discoverOptions) error { got = o; return nil })
	cmd.SetArgs(strings.Fields("civo --region fra1 --cluster dev --force --include-managed -d clusters"))
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("runF was not called")
	}
	want := "civo clusters force=true fra1 dev managed=true"
	if s := fmt.Sprintf("%s %s force=%t %s %s managed=%t", got.cloud, got.dir, got.force, got.discover.Region, got.discover.Cluster,
		got.discover.IncludeManaged); s != want {
		t.Errorf("got %s, want %s", s, want)
	}
	if stdout.Len()+stderr.Len() > 0 {
		t.Errorf("something ran: %s%s", stdout.String(), stderr.String())
	}
}

func TestSandboxsFlagsMakeItsOptionsWithoutStartingIt(t *testing.T) {
	for _, tc := range []struct {
		args, want string
	}{
		{"--reset --dir sb --engine eng -- clusterplane up a.yaml", `reset=true sb eng ["clusterplane" "up" "a.yaml"]`},
		{"--reset", `reset=true   []`},
		{"-- make e2e", `reset=false   ["make" "e2e"]`},
	} {
		t.Run(tc.args, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			f := newFactory(registry.Kinds(), strings.NewReader(""), &stdout, &stderr)
			got := "not run"
			cmd := newCmdSandbox(f, func(o *sandboxOptions) error {
				got = fmt.Sprintf("reset=%t %s %s %q", o.reset, o.dir, o.engine, o.args)
				return nil
			})
			cmd.SetArgs(strings.Fields(tc.args))
			if err := cmd.Execute(); err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
			if stdout.Len()+stderr.Len() > 0 {
				t.Errorf("something ran: %s%s", stdout.String(), stderr.String())
			}
		})
	}
}
