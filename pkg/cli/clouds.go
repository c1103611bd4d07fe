package cli

import (
	"context"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/cost"
	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
)

// Clouds are the clouds a command takes by name (regions CLOUD): every cloud a driver knows, by
// its ID, in the drivers' order.
func Clouds() []string {
	var out []string
	for _, id := range clouds.IDs() {
		out = append(out, string(id))
	}
	return out
}

// CloudsOr lists the clouds as a sentence offers them: "civo or digitalocean".
func CloudsOr() string { return strings.Join(Clouds(), " or ") }

// ExampleKind is the name of kinds' i-th kind, for a help text's example; KIND when there is none
// (a command built without kinds).
func ExampleKind(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return "KIND"
}

// TokenVars are the variables each cloud's token is read from, as a sentence lists them:
// "CIVO_TOKEN, DIGITALOCEAN_TOKEN".
func TokenVars() string {
	var out []string
	for _, d := range clouds.All() {
		out = append(out, d.Env().TokenEnv)
	}
	return strings.Join(out, ", ")
}

// ExampleFolder is the folder of examples/ holding the first kind's examples (its name in lower
// case, as examples/ names its folders), for a help text's example.
func ExampleFolder(names []string) string { return strings.ToLower(ExampleKind(names, 0)) }

// Prices are the prices of the cloud id for a run's reports, as its driver reads them
// (cloud.ReadPrices: the API's when the environment's token reads them, else the table), and the
// warning to say when the API failed. A cloud no driver knows prices nothing, never as another
// cloud, and says so in the prices' source.
func Prices(ctx context.Context, id string) (cost.Prices, string) {
	d, err := clouds.Get(cloud.ID(id))
	if err != nil {
		return clouds.Prices(id), ""
	}
	return cloud.ReadPrices(ctx, d)
}

// Regions are the regions the repository's table of the cloud id lists (its driver's); a cloud
// no driver knows is an error naming it.
func Regions(id string) ([]cost.Region, error) {
	d, err := clouds.Get(cloud.ID(id))
	if err != nil {
		return nil, err
	}
	return d.Regions(), nil
}
