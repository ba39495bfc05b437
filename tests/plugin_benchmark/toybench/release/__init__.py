"""What the benchmark releases: the one writer of its released files, their reader, its report page, dataset card
facts and the paper's tables."""
