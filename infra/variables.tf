# Inputs of the Introductions deployment. Everything project-specific comes
# from here; nothing else in infra/ names a project, region or person.

variable "project_id" {
  description = "Google Cloud project id the service runs in."
  type        = string
}

variable "region" {
  description = "Region of the Cloud Run functions (e.g. europe-west1)."
  type        = string
}

variable "firestore_location" {
  description = "Firestore location id (a region such as europe-west1 or a multi-region such as eur3). Defaults to var.region."
  type        = string
  default     = null
}

variable "firestore_database" {
  description = "Name of the Firestore database the service uses. Named outright, never \"(default)\" (SPEC §8)."
  type        = string
  default     = "introductions"

  validation {
    condition     = var.firestore_database != "(default)" && can(regex("^[a-z][a-z0-9-]{2,61}[a-z0-9]$", var.firestore_database))
    error_message = "The database must be named: 4-63 lowercase letters, digits or hyphens, starting with a letter; \"(default)\" is not allowed."
  }
}

variable "site_origins" {
  description = "Origins of the static site allowed by CORS (exact, e.g. https://example.com); never \"*\" or \"null\"."
  type        = list(string)

  validation {
    condition     = length(var.site_origins) > 0 && alltrue([for o in var.site_origins : can(regex("^(https://[a-z0-9.-]+|http://(localhost|127\\.0\\.0\\.1))(:[0-9]+)?$", o))])
    error_message = "Each site origin must be https://host[:port] (http only for localhost), without path, wildcard or \"null\"."
  }
}

variable "owner_email" {
  description = "Google account of the site owner: the only invoker of the private functions (sweep, admin) once they are declared."
  type        = string

  validation {
    condition     = can(regex("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", var.owner_email))
    error_message = "The owner must be an email address."
  }
}

variable "source_bucket" {
  description = "Cloud Storage bucket holding the zipped module source the functions are built from."
  type        = string
}

variable "source_object" {
  description = "Object in source_bucket: a zip of the repository root (go.mod and the root package registering every entry point). Name it per commit so a new object redeploys."
  type        = string
}

variable "go_runtime" {
  description = "Cloud Run functions Go runtime id. go.mod says go 1.26, so go126; an older runtime cannot build the module."
  type        = string
  default     = "go126"
}
