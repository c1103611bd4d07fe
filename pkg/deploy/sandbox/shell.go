package sandbox

import (
	"fmt"
	"os"
	"strings"
)

// ShellLines are the POSIX shell lines that enter the sandbox in dir whose clouds server serves:
// eval "$(clusterplane sandbox env)". The caller's own PATH stays, after the engine's, and so
// does a GOCACHE the shell set (one an earlier eval set included): Environ keeps Go's build
// cache the user's only when it sees the one there is.
func ShellLines(dir string, engine Engine, server *Server) []string {
	caller := []string{"PATH=$PATH"}
	if cache, ok := os.LookupEnv("GOCACHE"); ok {
		caller = append(caller, "GOCACHE="+cache)
	}
	env := Environ(caller, dir, engine, server.URLs)
	// A passphrase of the shell's own would win over the sandbox's file.
	lines := []string{"unset PULUMI_CONFIG_PASSPHRASE"}
	for _, kv := range env {
		key, value, _ := strings.Cut(kv, "=")
		if key == "PATH" {
			// Everything but the caller's own PATH, which the shell expands.
			lines = append(lines, fmt.Sprintf("export PATH=%s\"$PATH\"", shellQuote(strings.TrimSuffix(value, "$PATH"))))
			continue
		}
		lines = append(lines, fmt.Sprintf("export %s=%s", key, shellQuote(value)))
	}
	return lines
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
