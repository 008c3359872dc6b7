// HTTPServer: work in progress.
