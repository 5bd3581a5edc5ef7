# Terraform and provider requirements. The provider is pinned to one major
# version; `terraform init` writes the exact version and its checksums to
# .terraform.lock.hcl, which is committed (README.md, "The provider lock
# file"). State is local unless a backend is configured at init time
# (README.md, "Keeping the state in Cloud Storage").
terraform {
  required_version = ">= 1.5"

  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "~> 7.0"
    }
  }
}

# Requests carry the project as their quota project: the Firebase Rules API
# (the Firestore rules release) refuses user credentials without one.
provider "google" {
  project               = var.project_id
  region                = var.region
  billing_project       = var.project_id
  user_project_override = true
}
