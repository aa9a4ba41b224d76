// A fresh figures file for each run of the campaign.
const { writeFileSync } = require('node:fs');

module.exports = async () => {
  if (process.env.NAP_FAULTS_FIGURES) writeFileSync(process.env.NAP_FAULTS_FIGURES, '');
};
