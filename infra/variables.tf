# Inputs of the Introductions deployment. Everything project-specific comes
# from here; nothing else in infra/ names a project, region or person.

variable "project_id" {
  description = "Google Cloud project id the service runs in."
  type        = string
}

variable "region" {
  description = "Region of the functions, the source bucket and the image repository (e.g. europe-west1)."
  type        = string
}

variable "firestore_location" {
  description = "Firestore location id (a region such as europe-west1 or a multi-region such as eur3). Defaults to var.region. Cannot change after creation."
  type        = string
  default     = null
}

variable "firestore_database" {
  description = "Name of the Firestore database the service uses. Named outright, never \"(default)\"."
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

variable "site_url" {
  description = "The owner's site (SITE_URL), where the page's receipt and withdrawal lead back; null: no such link."
  type        = string
  default     = null

  validation {
    condition     = var.site_url == null || can(regex("^https?://[^\\s]+$", var.site_url))
    error_message = "The site URL must be an absolute http(s) URL."
  }
}

variable "owner_email" {
  description = "Google account of the site owner: the only invoker of the admin."
  type        = string

  validation {
    condition     = can(regex("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", var.owner_email))
    error_message = "The owner must be an email address."
  }
}

variable "owner_language" {
  description = "The language of the admin (OWNER_LANGUAGE): en or fa."
  type        = string
  default     = "en"

  validation {
    condition     = contains(["en", "fa"], var.owner_language)
    error_message = "The owner's language is en or fa."
  }
}

variable "owner_time_zone" {
  description = "The IANA time zone the admin shows times in (OWNER_TIME_ZONE), e.g. Asia/Tehran."
  type        = string
  default     = "UTC"
}

variable "alert_email" {
  description = "Where the alerts go (a delivery FAILED, the sweep failed or stopped, 5xx answers: monitoring.tf). Defaults to owner_email."
  type        = string
  default     = null

  validation {
    condition     = var.alert_email == null || can(regex("^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", var.alert_email))
    error_message = "The alert address must be an email address."
  }
}

variable "source_dir" {
  description = "Directory of the functions' zipped sources, <key>.zip for each key of local.functions: the module's files that function's build needs, with its entry package (functions/<key>/entry) as the root package. scripts/deploy.sh makes them and passes it."
  type        = string
}

variable "go_runtime" {
  description = "Cloud Run functions Go runtime id. go.mod says go 1.26, so go126; an older runtime cannot build the module."
  type        = string
  default     = "go126"
}

variable "hash_pepper_version" {
  description = "The version of the intake-hash-pepper secret the functions key their hashes with. Pinned: a new pepper would orphan every stored hash."
  type        = string
  default     = "1"

  validation {
    condition     = can(regex("^[1-9][0-9]*$", var.hash_pepper_version))
    error_message = "The pepper version is a version number (never \"latest\")."
  }
}

variable "sweep_schedule" {
  description = "When Cloud Scheduler runs the sweep (cron syntax, UTC)."
  type        = string
  default     = "*/15 * * * *"
}

variable "scheduler_region" {
  description = "Region of the Cloud Scheduler job. Defaults to var.region."
  type        = string
  default     = null
}

variable "admin_url" {
  description = "Where the owner opens the admin, for links in the handoff's messages (ADMIN_URL). Defaults to the admin function's URL; set http://localhost:8081 when you open it through `gcloud run services proxy --port=8081`."
  type        = string
  default     = null
}

variable "webhook_url" {
  description = "The owner's webhook (WEBHOOK_URL); null turns the webhook off. Add a version to intake-webhook-secret before setting it."
  type        = string
  default     = null

  validation {
    condition     = var.webhook_url == null || can(regex("^https://", var.webhook_url))
    error_message = "The webhook must be an https:// URL."
  }
}

variable "smtp" {
  description = "The mail server that sends the owner's notifications (SMTP_HOST, SMTP_PORT, SMTP_USERNAME, SMTP_TLS, NOTIFY_EMAIL_FROM, NOTIFY_EMAIL_TO; to may list several addresses, comma-separated); null turns mail off. With a username, add a version to intake-smtp-password before setting it."
  type = object({
    host     = string
    port     = optional(number) # default: 587 for starttls, 465 for tls
    username = optional(string) # null: the server takes mail without login
    tls      = optional(string, "starttls")
    from     = string
    to       = string
  })
  default = null

  validation {
    condition     = var.smtp == null || contains(["starttls", "tls"], try(var.smtp.tls, ""))
    error_message = "smtp.tls must be starttls or tls (a deployed service never sends mail in the clear)."
  }
}

variable "mailgun_events" {
  description = "Accept Mailgun's signed delivery events (MAILGUN_WEBHOOK_SIGNING_KEY). Add a version to intake-mailgun-signing-key before turning it on."
  type        = bool
  default     = false
}

variable "secret_env_versions" {
  description = "Version of each Secret Manager-backed variable (WEBHOOK_SECRET, SMTP_PASSWORD, MAILGUN_WEBHOOK_SIGNING_KEY); unset: latest. Instances read it when they start: after adding a version, set its number here and deploy, which starts new instances with it."
  type        = map(string)
  default     = {}

  validation {
    condition     = alltrue([for k, v in var.secret_env_versions : contains(["WEBHOOK_SECRET", "SMTP_PASSWORD", "MAILGUN_WEBHOOK_SIGNING_KEY"], k) && can(regex("^([1-9][0-9]*|latest)$", v))])
    error_message = "Keys are WEBHOOK_SECRET, SMTP_PASSWORD or MAILGUN_WEBHOOK_SIGNING_KEY; values a version number or latest."
  }
}
