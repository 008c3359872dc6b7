// RelayAPI: work in progress.
