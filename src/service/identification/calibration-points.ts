// No calibration fitted yet: the identity map.
import type { CalibrationPoints } from './calibration.js';

export const CALIBRATION_POINTS: CalibrationPoints = [];
