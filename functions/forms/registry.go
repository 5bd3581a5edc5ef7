package forms

import (
	"fmt"

	"github.com/ownersite/introductions/functions/wiring"
	"github.com/ownersite/introductions/shared/formregistry"
)

// RegistryPart names the form registry among an instance's parts.
const RegistryPart = "form registry"

// LoadRegistry is p's form registry, the embedded one.
func LoadRegistry(p *wiring.Parts) (*formregistry.Registry, error) {
	return wiring.Part(p, RegistryPart, func() (*formregistry.Registry, error) {
		registry, err := formregistry.Load()
		if err != nil {
			return nil, fmt.Errorf("form registry: %w", err)
		}
		return registry, nil
	})
}
