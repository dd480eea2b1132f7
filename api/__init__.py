"""The Flask API that answers the intranet's search box, and the admin views of ingest."""
