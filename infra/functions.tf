# The Cloud Run functions. Every function is built from the whole module (the
# root package registers every entry point with functions-framework-go) and
# differs only by entry point, identity, memory and who may invoke it.

locals {
  # One entry per deployed function. public = true grants allUsers the
  # invoker role; a private function (sweep, admin: later work) is added with
  # public = false and its invokers listed explicitly, e.g.
  #   invokers = ["user:${var.owner_email}"]
  # Only the four intake entry points of SPEC §1 are public.
  functions = {
    challenge = {
      entry_point     = "Challenge"
      public          = true
      invokers        = []
      memory          = "128Mi"
      max_instances   = 5
      service_account = google_service_account.intake.email
    }
    forms = {
      entry_point     = "Forms"
      public          = true
      invokers        = []
      memory          = "128Mi"
      max_instances   = 5
      service_account = google_service_account.intake.email
    }
    drafts = {
      entry_point     = "Drafts"
      public          = true
      invokers        = []
      memory          = "256Mi"
      max_instances   = 5
      service_account = google_service_account.intake.email
    }
    confirmation = {
      entry_point     = "Confirmation"
      public          = true
      invokers        = []
      memory          = "256Mi"
      max_instances   = 5
      service_account = google_service_account.intake.email
    }
  }

  public_functions = { for name, f in local.functions : name => f if f.public }

  # (function, member) pairs for the explicitly listed invokers.
  function_invokers = merge([
    for name, f in local.functions : {
      for m in f.invokers : "${name} ${m}" => { function = name, member = m }
    }
  ]...)

  function_env = {
    FIRESTORE_PROJECT  = var.project_id
    FIRESTORE_DATABASE = google_firestore_database.introductions.name
    ALLOWED_ORIGINS    = join(",", var.site_origins)
    HMAC_SECRET        = google_secret_manager_secret.hmac.id
  }
}

resource "google_cloudfunctions2_function" "function" {
  for_each = local.functions

  project     = var.project_id
  location    = var.region
  name        = "introductions-${each.key}"
  description = "Introductions: ${each.value.entry_point} entry point."

  build_config {
    runtime     = var.go_runtime
    entry_point = each.value.entry_point

    source {
      storage_source {
        bucket = var.source_bucket
        object = var.source_object
      }
    }
  }

  service_config {
    available_memory               = each.value.memory
    timeout_seconds                = 60
    max_instance_count             = each.value.max_instances
    ingress_settings               = "ALLOW_ALL"
    all_traffic_on_latest_revision = true
    service_account_email          = each.value.service_account
    environment_variables          = local.function_env
  }

  depends_on = [
    google_project_service.enabled,
    google_project_iam_member.intake_datastore_user,
    google_secret_manager_secret_iam_member.intake_hmac_accessor,
  ]
}

# Anyone may call the public functions: the site's page calls them from the
# visitor's browser. Granted on the Cloud Run service behind each function.
resource "google_cloud_run_service_iam_member" "public_invoker" {
  for_each = local.public_functions

  project  = var.project_id
  location = var.region
  service  = google_cloudfunctions2_function.function[each.key].name
  role     = "roles/run.invoker"
  member   = "allUsers"
}

# Named invokers of private functions (none are declared yet).
resource "google_cloud_run_service_iam_member" "invoker" {
  for_each = local.function_invokers

  project  = var.project_id
  location = var.region
  service  = google_cloudfunctions2_function.function[each.value.function].name
  role     = "roles/run.invoker"
  member   = each.value.member
}
