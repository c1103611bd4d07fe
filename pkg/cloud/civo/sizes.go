package civo

import (
	"context"
	"net/http"

	"github.com/pkg/errors"
)

// Size is an instance size Civo offers: Type "kubernetes" sizes may back a pool. Memory is in MiB.
type Size struct {
	Name       string `json:"name"`
	Type       string `json:"type"`
	CPUCores   int64  `json:"cpu_cores"`
	RAMMB      int64  `json:"ram_mb"`
	DiskGB     int64  `json:"disk_gb"`
	GPUCount   int64  `json:"gpu_count"`
	GPUType    string `json:"gpu_type"`
	Selectable bool   `json:"selectable"`
}

// Sizes are every instance size Civo offers (one list, the same in every region: civogo's
// ListInstanceSizes reads it without a region).
func (c *Client) Sizes(ctx context.Context) ([]Size, error) {
	var sizes []Size
	if err := c.api.Do(ctx, http.MethodGet, "/v2/sizes", nil, &sizes); err != nil {
		return nil, errors.Wrap(err, "list Civo's sizes")
	}
	return sizes, nil
}
