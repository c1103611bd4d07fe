package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/loopback/fakecivo"
	"github.com/clusterplane/clusterplane/pkg/loopback/fakedo"
)

func TestTheRequestLogHasALinePerRequestOfEachCloudAndNoToken(t *testing.T) {
	const token = "a-secret-token-for-the-log"
	do := fakedo.New(t, token)
	civo := fakecivo.New(t, token, "")
	path := filepath.Join(t.TempDir(), "requests")
	if err := logRequests(path, do, civo); err != nil {
		t.Fatal(err)
	}
	if err := seedClouds(2, do.URL(), token, civo.URL(), token); err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(text), token) {
		t.Fatalf("the request log holds the token:\n%s", text)
	}
	lines := strings.Split(strings.TrimSpace(string(text)), "\n")
	counts := map[string]int{}
	for _, line := range lines {
		fields := strings.Fields(line)
		if len(fields) != 5 || !strings.Contains(fields[0], ".") || !strings.HasPrefix(fields[4], "/") {
			t.Fatalf("line %q is not: time cloud method status path", line)
		}
		counts[fields[1]]++
	}
	for cloud, requests := range map[string]int{"digitalocean": len(do.Requests("")), "civo": len(civo.Requests(""))} {
		if requests == 0 || counts[cloud] != requests {
			t.Errorf("%s: %d lines in the log, %d requests received", cloud, counts[cloud], requests)
		}
	}
}
