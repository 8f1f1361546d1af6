import torch

def safe_softmax(scores, mask=None):
    if mask is not None:
        mask = torch.as_tensor(mask, dtype=torch.bool)
        scores = scores.masked_fill(~mask, float('-inf'))
    w = torch.softmax(scores, dim=-1)
    return torch.nan_to_num(w, nan=0.0)
