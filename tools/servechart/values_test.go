package main

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
)

// What each values file of the matrix changes.
func TestEachValuesFileRendersWhatItAsksFor(t *testing.T) {
	files := matrix(t)
	for _, tc := range []struct {
		name, values string
		check        func(t *testing.T, objs map[string]object)
	}{
		{
			name:   "the defaults run one Deployment whose replicas serve the API and run workers, no ServiceMonitor",
			values: "default",
			check: func(t *testing.T, objs map[string]object) {
				cs := containers(t, objs)
				c, ok := cs["clusterplane"]
				if len(cs) != 1 || !ok || !slices.Contains(args(c[0]), "--workers=2") || !slices.Contains(args(c[0]), "--log-format=json") {
					t.Errorf("Deployments %v", mapsKeys(cs))
				}
				// serve's own grace is 5 minutes under the pod's, for the engines to stop.
				if c[1]["terminationGracePeriodSeconds"] != float64(1500) || !slices.Contains(args(c[0]), "--shutdown-grace=1200s") {
					t.Errorf("grace %v, args %v: want 1500 and --shutdown-grace=1200s", c[1]["terminationGracePeriodSeconds"], args(c[0]))
				}
				for k := range objs {
					if strings.HasPrefix(k, "ServiceMonitor/") || strings.HasPrefix(k, "ConfigMap/") {
						t.Errorf("the defaults render %s", k)
					}
				}
				if e := envOf(c[0]); e["PULUMI_CONFIG_PASSPHRASE"] == nil || e["DIGITALOCEAN_API_URL"] != nil {
					t.Errorf("env %v: want the passphrase and no API URL", e)
				}
			},
		},
		{
			name:   "split runs an API Deployment with no workers behind the Service, and a worker Deployment",
			values: "split",
			check: func(t *testing.T, objs map[string]object) {
				cs := containers(t, objs)
				api, worker := cs["clusterplane"], cs["clusterplane-worker"]
				if api[0] == nil || worker[0] == nil || !slices.Contains(args(api[0]), "--workers=0") || !slices.Contains(args(worker[0]), "--workers=4") {
					t.Fatalf("Deployments %v", mapsKeys(cs))
				}
				if n := objs["Deployment/clusterplane-worker"]["spec"].(map[string]any)["replicas"]; n != float64(3) {
					t.Errorf("worker replicas %v", n)
				}
				sel := fmt.Sprint(objs["Service/clusterplane"]["spec"].(map[string]any)["selector"])
				if !strings.Contains(sel, "component:api") {
					t.Errorf("the Service selects %s, want the API pods only", sel)
				}
			},
		},
		{
			name:   "the ServiceMonitor scrapes /metrics of every pod through a headless Service",
			values: "servicemonitor",
			check: func(t *testing.T, objs map[string]object) {
				sm := objs["ServiceMonitor/clusterplane"]
				svc := objs["Service/clusterplane-metrics"]
				if sm == nil || svc == nil {
					t.Fatalf("objects %v", mapsKeys(objs))
				}
				ep := sm["spec"].(map[string]any)["endpoints"].([]any)[0].(map[string]any)
				if ep["path"] != "/metrics" || ep["port"] != "http" || sm["metadata"].(map[string]any)["labels"].(map[string]any)["release"] != "prometheus" {
					t.Errorf("ServiceMonitor %v", sm)
				}
				if sel := fmt.Sprint(svc["spec"].(map[string]any)["selector"]); strings.Contains(sel, "component") {
					t.Errorf("the metrics Service selects %s, want every pod", sel)
				}
			},
		},
		{
			name:   "a policy given as files is a ConfigMap mounted where --policy reads it",
			values: "policy",
			check: func(t *testing.T, objs map[string]object) {
				cm := objs["ConfigMap/clusterplane-policy"]
				if cm == nil || !strings.Contains(fmt.Sprint(cm["data"]), "only-frankfurt") {
					t.Fatalf("ConfigMap %v", cm)
				}
				policyMounted(t, containers(t, objs)["clusterplane"], "clusterplane-policy")
			},
		},
		{
			name:   "an external secrets provider is passed on with its credentials' Secret and no passphrase",
			values: "external-secrets",
			check: func(t *testing.T, objs map[string]object) {
				c := containers(t, objs)["clusterplane"]
				if !slices.Contains(args(c[0]), "--secrets-provider=awskms://alias/clusterplane?region=eu-central-1") {
					t.Errorf("args %v", args(c[0]))
				}
				if e := envOf(c[0]); e["PULUMI_CONFIG_PASSPHRASE"] != nil {
					t.Error("a passphrase is set beside an external provider")
				}
				if from := fmt.Sprint(c[0]["envFrom"]); !strings.Contains(from, "name:clusterplane-serve-aws") {
					t.Errorf("envFrom %s", from)
				}
				if _, ok := objs["ConfigMap/clusterplane-policy"]; ok {
					t.Error("a policy ConfigMap is made though an existing one is named")
				}
				policyMounted(t, c, "clusterplane-policy")
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, _ := renderObjects(t, files[tc.values])
			tc.check(t, objs)
		})
	}
}

// policyMounted checks that the ConfigMap is mounted where the container's --policy reads.
func policyMounted(t *testing.T, c [2]map[string]any, configMap string) {
	t.Helper()
	if !slices.Contains(args(c[0]), "--policy=/etc/clusterplane/policy") {
		t.Errorf("args %v", args(c[0]))
	}
	mounted := false
	for _, m := range c[0]["volumeMounts"].([]any) {
		m := m.(map[string]any)
		mounted = mounted || m["mountPath"] == "/etc/clusterplane/policy" && m["name"] == "policy"
	}
	vols := fmt.Sprint(c[1]["volumes"])
	if !mounted || !strings.Contains(vols, "configMap:map[name:"+configMap+"]") {
		t.Errorf("mounts %v, volumes %s", c[0]["volumeMounts"], vols)
	}
}

// A values file that leaves out where a secret or the image is, or gives the engines no time to
// stop, gets an error naming the value, not a pod that cannot start or loses its deploys.
// Promise: chart-refuses-unsafe-values
// Promise: chart-refuses-short-grace
func TestValuesThatLoseASecretsPlaceAreRefusedNamingIt(t *testing.T) {
	for _, tc := range []struct{ name, values, want string }{
		{"a database Secret with no name", "database:\n  secretName: \"\"\n", "database: the Secret's name"},
		{"a Pulumi backend with no key", "backend:\n  key: \"\"\n", "backend: the key in the Secret"},
		{"a passphrase with no Secret while no provider is named", "secrets:\n  passphrase:\n    secretName: \"\"\n", "secrets.passphrase: the Secret's name"},
		{"a cloud token with no key", "clouds:\n  civo:\n    key: \"\"\n", "clouds.civo: the key in the Secret"},
		{"an image with no repository", "image:\n  repository: \"\"\n", "image.repository: the registry and name"},
		{"a grace period too short for the engines to stop", "terminationGracePeriodSeconds: 120\n", "terminationGracePeriodSeconds: 120 is under 300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "values.yaml")
			values := "image:\n  repository: registry.example.com/clusterplane\n" + tc.values // a later key wins
			if err := os.WriteFile(file, []byte(values), 0o600); err != nil {
				t.Fatal(err)
			}
			_, err := render(chartDir, "clusterplane", "clusterplane", file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("render: %v, want an error saying %q", err, tc.want)
			}
		})
	}
}

// With no image.tag the image is the chart's appVersion, the tag `make images VERSION=...` gives
// the release's image (tools/images holds the appVersion to that tag): an install that names only
// the repository pulls what the release pushed.
func TestTheImagesTagDefaultsToTheChartsAppVersion(t *testing.T) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatal(err)
	}
	if want := "v" + ch.Metadata.Version; ch.Metadata.AppVersion != want {
		t.Errorf("the chart's appVersion is %q, want %s, its release's tag", ch.Metadata.AppVersion, want)
	}
	objs, _ := renderObjects(t, matrix(t)["default"])
	for name, c := range containers(t, objs) {
		if got, want := c[0]["image"], "registry.example.com/clusterplane:"+ch.Metadata.AppVersion; got != want {
			t.Errorf("%s runs the image %v, want %s", name, got, want)
		}
	}
}
