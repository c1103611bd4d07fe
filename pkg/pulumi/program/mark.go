package program

import (
	"path/filepath"

	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
)

// Mark is the mark of the stack a program binary deploys when the Pulumi CLI runs it (`pulumi up`
// in a program folder, or a Pulumi Kubernetes Operator workspace): the same mark clusterplane
// gives that stack of that backend, so that the two may deploy one stack in turn without either
// adding or removing the mark. The CLI does not tell a program its backend; the program finds it
// as the CLI chose it: PULUMI_BACKEND_URL, else the backend the project file names, else the
// backend `pulumi login` stored. Where none is found the mark is the zero Mark: the program adds
// none, as before clusterplane marked what it creates.
func Mark(ctx *pulumi.Context, getenv func(string) string) stackmark.Mark {
	url := backendURL(ctx.RootDirectory(), getenv)
	if url == "" {
		return stackmark.Mark{}
	}
	return stackmark.Of(stackmark.BackendID(url), ctx.Project()+"/"+ctx.Stack())
}

// backendURL is the backend the Pulumi CLI runs the program's stack in, found as the CLI finds
// it, "" when none is found.
func backendURL(projectDir string, getenv func(string) string) string {
	// The variable the CLI reads first, which the program inherits from it.
	if url := getenv("PULUMI_BACKEND_URL"); url != "" {
		return url
	}
	if projectDir != "" {
		if p, err := workspace.LoadProject(filepath.Join(projectDir, "Pulumi.yaml")); err == nil && p.Backend != nil && p.Backend.URL != "" {
			return p.Backend.URL
		}
	}
	if creds, err := workspace.GetStoredCredentials(); err == nil {
		return creds.Current
	}
	return ""
}
