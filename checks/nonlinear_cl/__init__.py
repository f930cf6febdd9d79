"""The checks of one paper: test_<result>.py per result, test_<module>.py for a module several results share."""
