package importing_test

import (
	"context"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"

	"github.com/clusterplane/clusterplane/pkg/cloud/importing"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
)

func TestAProgramRunMarkedAsAnImportSaysSoAndNoOtherDoes(t *testing.T) {
	if importing.Of(context.Background()) {
		t.Error("a context never marked says it imports")
	}
	for _, marked := range []bool{true, false} {
		var got bool
		if _, err := mockrun.Run(func(ctx *pulumi.Context) error {
			if marked {
				ctx = importing.Carry(ctx)
			}
			got = importing.Of(ctx.Context())
			return nil
		}, mockrun.Options{}); err != nil {
			t.Fatal(err)
		}
		if got != marked {
			t.Errorf("a run marked %t says it imports: %t", marked, got)
		}
	}
}
