package upgrade_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/change/upgrade"
	"github.com/clusterplane/clusterplane/pkg/cloud/kube"
)

// apiServer serves lists of objects by path to the token "t0ken" only, over TLS; other paths 404.
func apiServer(t *testing.T, lists map[string][]map[string]any) (kubeconfig []byte) {
	t.Helper()
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer t0ken" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		items, ok := lists[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"items": items, "metadata": map[string]any{}})
	}))
	t.Cleanup(srv.Close)
	ca := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	return []byte(fmt.Sprintf(`apiVersion: v1
kind: Config
clusters:
- name: c
  cluster:
    server: %s
    certificate-authority-data: %s
contexts:
- name: c
  context: {cluster: c, user: u}
current-context: c
users:
- name: u
  user: {token: t0ken}
`, srv.URL, base64.StdEncoding.EncodeToString(ca)))
}

func object(ns, name, lastApplied string, managers ...string) map[string]any {
	meta := map[string]any{"name": name}
	if ns != "" {
		meta["namespace"] = ns
	}
	if lastApplied != "" {
		meta["annotations"] = map[string]any{upgrade.LastApplied: lastApplied}
	}
	var managed []any
	for _, m := range managers {
		manager, version, _ := strings.Cut(m, "@")
		managed = append(managed, map[string]any{"manager": manager, "apiVersion": version, "operation": "Update"})
	}
	if managed != nil {
		meta["managedFields"] = managed
	}
	return map[string]any{"metadata": meta}
}

// Promise: upgrade-plan-names-objects-of-removed-apis
func TestTheScanNamesObjectsLastAppliedOrManagedWithARemovedAPI(t *testing.T) {
	kc := apiServer(t, map[string][]map[string]any{
		"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas": {
			object("", "old-schema", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1beta3","kind":"FlowSchema"}`),
			object("", "new-schema", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema"}`),
			object("", "no-annotation", ""),
			object("", "old-controller", "", "operator@flowcontrol.apiserver.k8s.io/v1beta3", "kubectl@flowcontrol.apiserver.k8s.io/v1"),
		},
		"/apis/batch/v1/cronjobs": {
			object("jobs", "nightly", `{"apiVersion":"batch/v1beta1","kind":"CronJob"}`),
			object("jobs", "hourly", `{"apiVersion":"batch/v1","kind":"CronJob"}`),
		},
	})
	var removed []upgrade.Removed
	for _, r := range upgrade.RemovedAPIs {
		if r.In == "1.32" || r.In == "1.25" {
			removed = append(removed, r)
		}
	}
	list, err := kube.Lister(kc)
	if err != nil {
		t.Fatal(err)
	}
	objects, notes, err := upgrade.FindRemoved(context.Background(), list, removed)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, o := range objects {
		got = append(got, fmt.Sprintf("%s %s/%s %s %s", o.Kind, o.Namespace, o.Name, o.APIVersion, o.Source))
	}
	want := []string{
		"CronJob jobs/nightly batch/v1beta1 last-applied-configuration",
		"FlowSchema /old-controller flowcontrol.apiserver.k8s.io/v1beta3 managedFields (operator)",
		"FlowSchema /old-schema flowcontrol.apiserver.k8s.io/v1beta3 last-applied-configuration",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("objects\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The other 1.25 collections are not served by this server: said, not failed on.
	if !strings.Contains(strings.Join(notes, "\n"), "policy/v1 poddisruptionbudgets is not served") {
		t.Errorf("notes %q", notes)
	}
}

func TestAKubeconfigThatDoesNotParseIsNeverQuoted(t *testing.T) {
	// The cluster's objects are listed through its kubeconfig (kube.Lister), which a driver reads
	// from its cloud; a scan never begins with one that does not parse.
	_, err := kube.Lister([]byte("users: [{user: {token: s3cret}}]\n: :"))
	if err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("err = %v", err)
	}
}

func TestAnObjectIsNamedByItsNamespaceAndNameOrItsNameAlone(t *testing.T) {
	for _, tc := range []struct {
		name string
		obj  upgrade.Object
		want string
	}{
		{"an object in a namespace is namespace/name", upgrade.Object{Namespace: "shop", Name: "web"}, "shop/web"},
		{"a cluster-wide object is its name alone", upgrade.Object{Name: "admin"}, "admin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.obj.Ref(); got != tc.want {
				t.Errorf("Ref() = %q, want %q", got, tc.want)
			}
		})
	}
}
