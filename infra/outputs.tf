output "function_urls" {
  description = "URL of each function, by name: the site's page is configured with the public ones."
  value       = { for name, f in google_cloudfunctions2_function.function : name => f.service_config[0].uri }
}

output "admin_proxy_command" {
  description = "Opens the admin on http://localhost:8081/admin/ for the owner's account."
  value       = "gcloud run services proxy ${google_cloudfunctions2_function.function["admin"].name} --project=${var.project_id} --region=${var.region} --port=8081"
}

output "firestore_database" {
  description = "Name of the Firestore database (FIRESTORE_DATABASE)."
  value       = google_firestore_database.introductions.name
}

output "secrets" {
  description = "Secret ids, by role; add versions to them out of band."
  value       = { for k, s in google_secret_manager_secret.secret : k => s.secret_id }
}

output "scheduler_job" {
  description = "Full name of the sweep's Cloud Scheduler job (SCHEDULER_JOB)."
  value       = google_cloud_scheduler_job.sweep.id
}

output "service_accounts" {
  description = "Email of each function's runtime service account, by function."
  value       = { for k, a in google_service_account.function : k => a.email }
}
