//go:build e2e

package e2e_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// TestAStackInputsAPIURLNeverReceivesTheEnvironmentsToken is the CI case: the job's environment
// holds the production token, and a pull request adds a stack input naming a server of its own as
// providerConfig.apiUrl, without a token. Every command refuses it at that field before asking
// anything, and the server hears nothing, least of all the token.
func TestAStackInputsAPIURLNeverReceivesTheEnvironmentsToken(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ name, example, token string }{
		{"DigitalOcean", "digitaloceankubernetescluster/minimal.stack-input.yaml", doToken},
		{"Civo", "civokubernetescluster/minimal.stack-input.yaml", civoToken},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t)
			var mu sync.Mutex
			var heard []string // each request's method, path and whether it carried the token
			listener := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				mu.Lock()
				defer mu.Unlock()
				// Never the header itself: it may hold the token, which must not reach the logs.
				auth := r.Header.Get("Authorization")
				heard = append(heard, fmt.Sprintf("%s %s (an Authorization header: %t, the environment's token: %t)",
					r.Method, r.URL.Path, auth != "", strings.Contains(auth, tt.token)))
				w.WriteHeader(http.StatusNotFound)
			}))
			defer listener.Close()
			text := example(t, tt.example)
			if !strings.Contains(text, "providerConfig: {}") {
				t.Fatalf("%s has no empty providerConfig to replace", tt.example)
			}
			input := e.write("hostile.stack-input.yaml",
				strings.Replace(text, "providerConfig: {}", "providerConfig: {apiUrl: '"+listener.URL+"'}", 1))
			for _, args := range [][]string{{"validate", input}, {"preview", input}, {"up", input, "--yes"}} {
				r, code := e.clusterplane(args...)
				if code == 0 {
					t.Errorf("clusterplane %s = 0, want a refusal: %s", args[0], r)
				}
				out := r.stdout + r.stderr
				if !strings.Contains(out, "providerConfig.apiUrl") || !strings.Contains(out, "needs its own apiToken") {
					t.Errorf("clusterplane %s does not refuse at providerConfig.apiUrl: %s", args[0], r)
				}
				if !strings.Contains(out, "hostile.stack-input.yaml:") {
					t.Errorf("clusterplane %s does not name the file's place: %s", args[0], r)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if len(heard) != 0 {
				t.Errorf("the stack input's API URL received %d requests, want none:\n%s", len(heard), strings.Join(heard, "\n"))
			}
		})
	}
}
