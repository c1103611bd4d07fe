package upgrade

import (
	"context"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud"
)

// A cloud clusterplane asks no upgrades of is one that says so, never another cloud's API.
func TestACloudWithoutUpgradeChecksSaysSoAndIsNeverAskedAsAnotherCloud(t *testing.T) {
	c := cloudOf(cloud.ID("othercloud"), "http://127.0.0.1:1", "token", "fra1")
	if _, ok := c.(NoCloud); !ok {
		t.Fatalf("cloudOf(othercloud) = %T, want NoCloud", c)
	}
	if _, _, err := c.Find(context.Background(), "c", "fra1", ""); err == nil || !strings.Contains(err.Error(), `"othercloud"`) {
		t.Errorf("Find on othercloud = %v, want an error naming the cloud", err)
	}
}
