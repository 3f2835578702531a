INPUTS = None
