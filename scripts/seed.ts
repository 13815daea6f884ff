console.error('seed: not available yet');
