package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// Each check holds for every values file of the matrix.
// Promise: chart-secrets-from-secrets-only
func TestEveryValuesOfTheMatrixRendersASafeDeploymentOfServesRealFlags(t *testing.T) {
	for _, tc := range []struct {
		name  string
		check func(t *testing.T, objs map[string]object, text string)
	}{
		{
			name: "every container runs as a non-root user on a read-only root, with no privilege and no capability",
			check: func(t *testing.T, objs map[string]object, _ string) {
				for name, cp := range containers(t, objs) {
					c, pod := cp[0], cp[1]
					sc, _ := c["securityContext"].(map[string]any)
					psc, _ := pod["securityContext"].(map[string]any)
					if sc["readOnlyRootFilesystem"] != true || sc["allowPrivilegeEscalation"] != false || sc["runAsNonRoot"] != true ||
						psc["runAsNonRoot"] != true || psc["runAsUser"] == float64(0) ||
						fmt.Sprint(sc["capabilities"]) != "map[drop:[ALL]]" {
						t.Errorf("%s: securityContext %v, pod's %v", name, sc, psc)
					}
				}
			},
		},
		{
			name: "the Pulumi home and the temporary folder are writable folders of the pod",
			check: func(t *testing.T, objs map[string]object, _ string) {
				for name, cp := range containers(t, objs) {
					mounts := map[string]string{}
					for _, m := range cp[0]["volumeMounts"].([]any) {
						m := m.(map[string]any)
						mounts[m["mountPath"].(string)] = m["name"].(string)
					}
					empty := map[string]bool{}
					for _, v := range cp[1]["volumes"].([]any) {
						v := v.(map[string]any)
						_, empty[v["name"].(string)] = v["emptyDir"]
					}
					e := envOf(cp[0])
					for _, dir := range []string{e["PULUMI_HOME"].(string), e["HOME"].(string), e["TMPDIR"].(string), cp[0]["workingDir"].(string)} {
						ok := false
						for p, vol := range mounts {
							ok = ok || (dir == p || strings.HasPrefix(dir, p+"/")) && empty[vol]
						}
						if !ok {
							t.Errorf("%s: %s is on no emptyDir (mounts %v)", name, dir, mounts)
						}
					}
				}
			},
		},
		{
			name: "every secret comes from a Secret by reference, and the chart renders no Secret",
			check: func(t *testing.T, objs map[string]object, text string) {
				for k := range objs {
					if strings.HasPrefix(k, "Secret/") {
						t.Errorf("the chart renders %s", k)
					}
				}
				for name, cp := range containers(t, objs) {
					e := envOf(cp[0])
					for _, v := range secretEnv {
						ref, ok := e[v].(map[string]any)
						if _, set := e[v]; set && (!ok || ref["secretKeyRef"] == nil) {
							t.Errorf("%s: %s is %v, want a secretKeyRef", name, v, e[v])
						}
					}
					if e["CLUSTERPLANE_DATABASE_URL"] == nil || e["PULUMI_BACKEND_URL"] == nil {
						t.Errorf("%s: no database or no Pulumi backend in %v", name, e)
					}
				}
				if strings.Contains(text, "postgres://") {
					t.Error("a database URL is in the rendered objects")
				}
			},
		},
		{
			name: "the container's arguments are serve's and its flags are those serve --help lists",
			check: func(t *testing.T, objs map[string]object, _ string) {
				flags := serveFlags(t)
				for name, cp := range containers(t, objs) {
					a := args(cp[0])
					if len(a) == 0 || a[0] != "serve" {
						t.Errorf("%s: args %v, want serve first", name, a)
						continue
					}
					for _, arg := range a[1:] {
						flag, _, _ := strings.Cut(strings.TrimPrefix(arg, "--"), "=")
						if !strings.HasPrefix(arg, "--") || !slices.Contains(flags, flag) {
							t.Errorf("%s: %q is no flag of serve's (%v)", name, arg, flags)
						}
					}
				}
			},
		},
		{
			name: "the container's variables are those serve, the clouds and the engine read",
			check: func(t *testing.T, objs map[string]object, _ string) {
				known := knownEnv(t)
				for name, cp := range containers(t, objs) {
					for v := range envOf(cp[0]) {
						if !slices.Contains(known, v) {
							t.Errorf("%s: %s is read by nothing serve runs", name, v)
						}
					}
				}
			},
		},
		{
			name: "liveness asks /healthz and readiness /readyz of the port serve listens on",
			check: func(t *testing.T, objs map[string]object, _ string) {
				for name, cp := range containers(t, objs) {
					c := cp[0]
					port := c["ports"].([]any)[0].(map[string]any)
					listen := fmt.Sprintf("--listen=0.0.0.0:%v", port["containerPort"])
					if !slices.Contains(args(c), listen) || port["name"] != "http" {
						t.Errorf("%s: args %v, port %v, want %s", name, args(c), port, listen)
					}
					for probe, path := range map[string]string{"livenessProbe": "/healthz", "readinessProbe": "/readyz", "startupProbe": "/healthz"} {
						get, _ := c[probe].(map[string]any)["httpGet"].(map[string]any)
						if get["path"] != path || get["port"] != "http" {
							t.Errorf("%s: %s %v, want GET %s on http", name, probe, c[probe], path)
						}
					}
				}
			},
		},
		{
			name: "the service account mounts no token and nothing grants it a role",
			check: func(t *testing.T, objs map[string]object, _ string) {
				sa := objs["ServiceAccount/clusterplane"]
				if sa == nil || sa["automountServiceAccountToken"] != false {
					t.Errorf("ServiceAccount %v", sa)
				}
				for name, cp := range containers(t, objs) {
					if cp[1]["automountServiceAccountToken"] != false || cp[1]["serviceAccountName"] != "clusterplane" {
						t.Errorf("%s: pod %v", name, cp[1])
					}
				}
				for k := range objs {
					if strings.Contains(k, "Role") {
						t.Errorf("the chart renders %s", k)
					}
				}
			},
		},
		{
			name: "each Deployment has a disruption budget of its own pods",
			check: func(t *testing.T, objs map[string]object, _ string) {
				for name := range containers(t, objs) {
					pdb := objs["PodDisruptionBudget/"+name]
					d := objs["Deployment/"+name]
					if pdb == nil || fmt.Sprint(pdb["spec"].(map[string]any)["selector"]) != fmt.Sprint(d["spec"].(map[string]any)["selector"]) {
						t.Errorf("%s: budget %v", name, pdb)
					}
				}
			},
		},
	} {
		for entry, file := range matrix(t) {
			t.Run(tc.name+"/"+entry, func(t *testing.T) {
				objs, text := renderObjects(t, file)
				tc.check(t, objs, text)
			})
		}
	}
}
