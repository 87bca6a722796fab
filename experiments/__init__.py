"""One module per paper reproduction. Each declares ``EXPERIMENT = Experiment(...)`` (see
``gpusched.experiment.registry``) and is found by name: ``gpusched reproduce <module>``."""
