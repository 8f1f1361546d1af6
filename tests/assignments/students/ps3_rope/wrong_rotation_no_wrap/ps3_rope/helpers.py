import torch

def thetas(d, base):
    return float(base) ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
